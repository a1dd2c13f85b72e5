package httpapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// grants answers CredentialByHash from a table by secret hash.
type grants map[string]store.CredentialGrant

func (g grants) CredentialByHash(_ context.Context, hash string) (store.CredentialGrant, error) {
	if c, ok := g[hash]; ok {
		return c, nil
	}
	return store.CredentialGrant{}, workshop.NotFound("credential")
}

func (grants) NoteCredentialUse(string, time.Time) {}

// Authentication's refusals name what was wanted: a key at /v1, an MCP
// token (wsm_...) at /mcp, never a "key" to an MCP client.
func TestAuthenticateNamesTheCredential(t *testing.T) {
	t.Parallel()
	now := workshop.MicrosOf(time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC))
	revoked, expired := workshop.NewSecret(workshop.MCPTokenPrefix), workshop.NewSecret(workshop.MCPTokenPrefix)
	past := now - 1
	creds := grants{
		workshop.HashSecret(revoked): {Credential: workshop.Credential{ID: "key_r", Kind: workshop.KindMCPToken, RevokedAt: &past}},
		workshop.HashSecret(expired): {Credential: workshop.Credential{ID: "key_e", Kind: workshop.KindMCPToken, ExpiresAt: &past}},
	}
	for _, tc := range []struct {
		name, header string
		want         workshop.CredentialKind
		code         workshop.Code
		says         string
	}{
		{"MCP, none", "", workshop.KindMCPToken, workshop.CodeMissingKey, "MCP token (wsm_...)"},
		{"MCP, not Bearer", "Basic abc", workshop.KindMCPToken, workshop.CodeInvalidKey, "Bearer <wsm_...>"},
		{"MCP, unknown", "Bearer " + workshop.NewSecret(workshop.MCPTokenPrefix), workshop.KindMCPToken, workshop.CodeInvalidKey, "MCP token (wsm_...) is not valid"},
		{"MCP, revoked", "Bearer " + revoked, workshop.KindMCPToken, workshop.CodeKeyRevoked, "MCP token (wsm_...) was revoked"},
		{"MCP, expired", "Bearer " + expired, workshop.KindMCPToken, workshop.CodeKeyExpired, "MCP token (wsm_...) expired"},
		{"API, none", "", workshop.KindAPIKey, workshop.CodeMissingKey, "Send your key"},
	} {
		_, err := Authenticate(t.Context(), creds, tc.header, tc.want, now)
		if workshop.ErrorCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want %s saying %q", tc.name, err, tc.code, tc.says)
		}
		if tc.want == workshop.KindMCPToken && err != nil && strings.Contains(err.Error(), " key") {
			t.Errorf("%s: got %q, which calls the MCP token a key", tc.name, err)
		}
	}
}
