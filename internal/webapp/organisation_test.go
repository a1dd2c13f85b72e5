package webapp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An invite link is on the address the browser used: plain http only on
// this machine, https behind a proxy.
func TestBaseURLOf(t *testing.T) {
	t.Parallel()
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	for _, tc := range []struct{ host, want string }{
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"localhost:8080", "http://localhost:8080"},
		{"workshop.example.com", "https://workshop.example.com"},
	} {
		r := httptest.NewRequest("GET", "/organisation", nil)
		r.Host = tc.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, loopback))
		if got := baseURLOf(r); got != tc.want {
			t.Errorf("baseURLOf(Host %s) = %q, want %q", tc.host, got, tc.want)
		}
	}
}
