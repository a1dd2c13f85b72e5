package webapp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
)

// MCP tokens: the read-only AI connection at /mcp (contract section 6),
// and a configuration for the clients that connect to it.

// createMCPToken makes a read-only MCP token acting as the user, and
// shows it once with a configuration for an MCP client.
func (a *App) createMCPToken(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, "")
	if err != nil {
		return err
	}
	f := formOf(r, tokenFields...)
	out, err := a.op.CreateNamedMCPToken(r.Context(), si.Member.User.ID, f.Values["tokenName"])
	if err != nil {
		status, ok := f.refusal(err, map[string]string{"name": "tokenName"})
		if !ok {
			return err
		}
		return a.renderDeveloper(w, r, d, status, nil, &f, nil)
	}
	return a.showSecret(w, r, d, secretView{Title: "MCP token created", What: "MCP token", Name: strings.TrimSpace(f.Values["tokenName"]),
		Secret: out.Token, Snippet: mcpSnippet(mcpURL(r), out.Token), Back: developerPath, BackLabel: "Back to keys and tokens"})
}

// mcpURL is the MCP endpoint of this server as the browser reached it.
func mcpURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/mcp"
}

// mcpSnippet is a configuration for MCP clients that read mcpServers
// (Claude Desktop, VS Code and others), the token sent as a bearer header.
func mcpSnippet(url, token string) string {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cfg := map[string]map[string]server{"mcpServers": {"workshop": {Type: "http", URL: url,
		Headers: map[string]string{"Authorization": "Bearer " + token}}}}
	b, _ := json.MarshalIndent(cfg, "", "  ") // plain strings: it cannot fail
	return string(b)
}
