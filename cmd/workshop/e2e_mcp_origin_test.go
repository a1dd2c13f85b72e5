package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestMCPOrigin: a web page of another site may not call /mcp (DNS
// rebinding, contract section 6); the server's own origin, the ones the
// operator allowed, and clients that send no Origin may.
func TestMCPOrigin(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Origin Motors", workshop.PlanPro, 1)
		token, err := w.op.CreateMCPToken(context.Background(), a.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The allowed origins as an operator writes them, from the
		// environment, through serve's own flag parsing.
		srv := apitest.Start(t, db.URL, func(ctx context.Context, c apitest.Config) error {
			sc, err := parseServe(nil, envOf(map[string]string{
				"WORKSHOP_MCP_ALLOWED_ORIGINS": "https://Assistant.example:443/, http://localhost:6274"}))
			if err != nil {
				return err
			}
			sc.database, sc.addr, sc.onListen = c.Database, c.Addr, c.OnListen
			return serveWith(ctx, sc, io.Discard, c.Log)
		})
		initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
			`"clientInfo":{"name":"e2e","version":"1"}}}`
		rebound := "evil.example:" + strings.TrimPrefix(srv.Addr, "127.0.0.1:")
		for _, tc := range []struct {
			name, host, origin, key string
			want                    int
		}{
			{"no Origin", "", "", token.Token, http.StatusOK},
			{"the server's own", "", srv.URL, token.Token, http.StatusOK},
			{"the server's own, as localhost", "localhost:1", "http://localhost:1", token.Token, http.StatusOK},
			{"allowed by the operator", "", "https://assistant.example", token.Token, http.StatusOK},
			{"allowed, with its port", "", "http://localhost:6274", token.Token, http.StatusOK},
			{"another site", "", "https://evil.example", token.Token, http.StatusForbidden},
			{"another site without a token", "", "https://evil.example", "", http.StatusForbidden},
			{"a site rebound to the loopback address", rebound, "http://" + rebound, token.Token, http.StatusForbidden},
			{"an allowed host with another scheme", "", "http://assistant.example", token.Token, http.StatusForbidden},
			{"an allowed host with another port", "", "http://localhost:6275", token.Token, http.StatusForbidden},
			{"a sandboxed page", "", "null", token.Token, http.StatusForbidden},
		} {
			r := postMCP(t, srv.URL, tc.host, tc.origin, tc.key, initialize)
			if r.Status != tc.want {
				t.Errorf("%s (Host %q, Origin %q): got %d %s, want %d", tc.name, tc.host, tc.origin, r.Status, r.Body, tc.want)
				continue
			}
			if tc.want == http.StatusForbidden {
				p := r.Problem()
				if got := string(p.Code); got != "origin_forbidden" || !strings.Contains(p.Detail, tc.origin) ||
					!strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
					t.Errorf("%s: got %s %s %q, want an origin_forbidden problem naming the origin", tc.name, r.Header.Get("Content-Type"), got, p.Detail)
				}
			}
		}
	})
}

// postMCP posts body to base/mcp with the Host (when not ""), Origin (when
// not "") and bearer token (when not "") given.
func postMCP(t *testing.T, base, host, origin, token, body string) *apitest.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// TestMCPAllowedOriginsFlag: an allowed origin must be an origin.
func TestMCPAllowedOriginsFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ value, wantErr string }{
		{"https://a.example,http://127.0.0.1:6274", ""},
		{"", ""},
		{"a.example", `"a.example" is not an origin`},
		{"ftp://a.example", `"ftp://a.example" is not an origin`},
		{"https://a.example/path", `"https://a.example/path" is not an origin`},
	} {
		_, err := parseServe([]string{"--mcp-allowed-origins", tc.value}, envOf(nil))
		if got := errText(err); (tc.wantErr == "") != (got == "") || !strings.Contains(got, tc.wantErr) {
			t.Errorf("--mcp-allowed-origins %q: got error %q, want %q", tc.value, got, tc.wantErr)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
