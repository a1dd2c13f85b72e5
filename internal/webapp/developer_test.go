package webapp

import (
	"crypto/tls"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// TestMCPSnippet: the configuration is JSON an MCP client reads, with the
// server's /mcp as the browser reached it and the token as a bearer header.
func TestMCPSnippet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, host, forwarded string
		tls                   bool
		want                  string
	}{
		{"plain http", "127.0.0.1:8080", "", false, "http://127.0.0.1:8080/mcp"},
		{"TLS", "workshop.example.com", "", true, "https://workshop.example.com/mcp"},
		{"behind a TLS proxy", "workshop.example.com", "https", false, "https://workshop.example.com/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/developer", nil)
			r.Host = tc.host
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tc.forwarded != "" {
				r.Header.Set("X-Forwarded-Proto", tc.forwarded)
			}
			var cfg struct {
				MCPServers map[string]struct {
					Type    string            `json:"type"`
					URL     string            `json:"url"`
					Headers map[string]string `json:"headers"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(mcpSnippet(mcpURL(r), `wsm_a"b`)), &cfg); err != nil {
				t.Fatalf("the snippet is not JSON: %v", err)
			}
			s := cfg.MCPServers["workshop"]
			if s.Type != "http" || s.URL != tc.want || s.Headers["Authorization"] != `Bearer wsm_a"b` {
				t.Errorf("server %+v, want type http, url %s, Authorization: Bearer and the token", s, tc.want)
			}
		})
	}
}

// TestEndOfDay: a key valid through a date expires when the next day
// begins, UTC; no date is no expiry.
func TestEndOfDay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		want  string // RFC 3339; "" none
		valid bool
	}{
		{"", "", true},
		{"2026-12-31", "2027-01-01T00:00:00Z", true},
		{"31.12.2026", "", false},
	} {
		got, ok := endOfDay(tc.in)
		var s string
		if got != nil {
			s = got.Format(time.RFC3339)
		}
		if ok != tc.valid || s != tc.want {
			t.Errorf("endOfDay(%q) = %q, %v; want %q, %v", tc.in, s, ok, tc.want, tc.valid)
		}
	}
}
