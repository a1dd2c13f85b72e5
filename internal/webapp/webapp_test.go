package webapp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Only a path of this site may follow a sign-in: anything a browser would
// take to another site is refused.
func TestLocalPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		next string
		ok   bool
	}{
		{"/", true},
		{"/locations/loc_1/board?x=1#top", true},
		{"", false},
		{"board", false},
		{"//evil.example", false},
		{"///evil.example", false},
		{`/\evil.example`, false},
		{`/x\y`, false},
		{"/\t/evil.example", false},
		{"/\n/evil.example", false},
		{"https://evil.example/", false},
		{"javascript:alert(1)", false},
		{"/%zz", false},
	} {
		if _, ok := localPath(tc.next); ok != tc.ok {
			t.Errorf("localPath(%q) ok = %v, want %v", tc.next, ok, tc.ok)
		}
	}
}

// The cookie is Secure unless the request came over plain http to a
// loopback address for a loopback host.
func TestPlainLoopback(t *testing.T) {
	t.Parallel()
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	public := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}
	for _, tc := range []struct {
		name  string
		local net.Addr
		host  string
		want  bool
	}{
		{"127.0.0.1", loopback, "127.0.0.1:8080", true},
		{"localhost", loopback, "localhost:8080", true},
		{"[::1]", &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "[::1]:8080", true},
		{"proxy on loopback for a public name", loopback, "workshop.example.com", false},
		{"public address", public, "10.0.0.5:8080", false},
		{"unknown local address", nil, "127.0.0.1:8080", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tc.host
		if tc.local != nil {
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
		}
		if got := plainLoopback(r); got != tc.want {
			t.Errorf("%s: plainLoopback = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Every page parses, and every asset has a versioned path it is served at.
func TestPagesAndAssets(t *testing.T) {
	t.Parallel()
	if _, err := parsePages(); err != nil {
		t.Fatalf("parsePages: %v", err)
	}
	for name, path := range assetPaths {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", path, nil)
		r.SetPathValue("name", path[len("/static/"):])
		serveAsset(rec, r)
		if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || path == "/static/"+name && name != "htmx-2.0.11.min.js" {
			t.Errorf("asset %s at %s: %d, Cache-Control %q; want 200, immutable, a versioned name", name, path, rec.Code, rec.Header().Get("Cache-Control"))
		}
	}
}
