package apidocs

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The embedded bundle is the one redoc/README.md pins, byte for byte.
func TestBundleIsThePinnedRedoc(t *testing.T) {
	t.Parallel()
	const want = "dcaf76612bc4a3fbcc923a8966dee2f6146a5f32e5ce1b6f02dd60cbbf89500b" // redoc@2.5.4
	b, err := redoc.ReadFile("redoc/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("sha256 of redoc/redoc.standalone.js: got %s, want %s (redoc/README.md)", got, want)
	}
}

// assetRe finds every address the page loads from.
var assetRe = regexp.MustCompile(`(?:src|href|spec-url)="([^"]*)"`)

func TestHandler(t *testing.T) {
	t.Parallel()
	h := Handler()
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	page := get("/docs")
	if page.Code != http.StatusOK || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: got %d %q, want 200 text/html", page.Code, page.Header().Get("Content-Type"))
	}
	if csp := page.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("Content-Security-Policy: got %q, want only the page's own scripts", csp)
	}
	assets := assetRe.FindAllStringSubmatch(page.Body.String(), -1)
	if len(assets) < 2 {
		t.Fatalf("page: got assets %q, want the bundle and the document", assets)
	}
	for _, m := range assets {
		url := m[1]
		switch {
		case url == "data:,": // the empty icon
		case !strings.HasPrefix(url, "/") || strings.HasPrefix(url, "//"):
			t.Errorf("page loads %q, want a same-origin path", url)
		case strings.HasPrefix(url, "/docs/"):
			if rec := get(url); rec.Code != http.StatusOK || rec.Body.Len() == 0 {
				t.Errorf("GET %s: got %d with %d bytes, want 200 with the asset", url, rec.Code, rec.Body.Len())
			}
		}
	}
	for _, tt := range []struct {
		path       string
		wantStatus int
		wantType   string
	}{
		{bundlePath(), http.StatusOK, "text/javascript"},
		{"/docs/LICENSE-redoc.txt", http.StatusOK, "text/plain"},
		{"/docs/", http.StatusMovedPermanently, ""},
		{"/docs/nothing.js", http.StatusNotFound, ""},
	} {
		rec := get(tt.path)
		if rec.Code != tt.wantStatus || !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.wantType) {
			t.Errorf("GET %s: got %d %q, want %d %q", tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.wantStatus, tt.wantType)
		}
	}
}

// The served bundle loads nothing from Redocly's CDN.
func TestServedBundleNamesNoCDN(t *testing.T) {
	t.Parallel()
	if n := strings.Count(string(servedBundle()), "cdn.redoc.ly"); n != 0 {
		t.Errorf("the served bundle names cdn.redoc.ly %d times, want none", n)
	}
}

// Each patch of the served bundle finds what it changes exactly once in
// the pinned Redoc, and the served bundle has it changed.
func TestBundlePatchesApply(t *testing.T) {
	t.Parallel()
	pinned, err := redoc.ReadFile("redoc/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	served := string(servedBundle())
	for _, p := range bundlePatches {
		if n := strings.Count(string(pinned), p.old); n != 1 {
			t.Errorf("%q occurs %d times in the pinned bundle, want once", p.old, n)
		}
		if strings.Contains(served, p.old) || !strings.Contains(served, p.new) {
			t.Errorf("the served bundle does not have %q changed to %q", p.old, p.new)
		}
	}
	if !strings.Contains(bundlePath(), redocVersion) {
		t.Errorf("bundle path %s does not name Redoc's version %s", bundlePath(), redocVersion)
	}
}
