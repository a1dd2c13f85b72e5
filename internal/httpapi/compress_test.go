package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCompress(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", compressMin+1)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		accept  string
		gzipped bool
	}{
		{"large JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`"` + big + `"`))
		}, "gzip", true},
		{"exactly 1 KiB", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(big[:compressMin]))
		}, "gzip", false},
		{"server-sent events", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: " + big + "\n\n"))
		}, "gzip", false},
		{"flushed before 1 KiB", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("data: 1\n\n"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte(big))
		}, "gzip", false},
		{"already encoded", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write([]byte(big))
		}, "gzip", false},
		{"an image", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte(big))
		}, "gzip", false},
		{"gzip with a weight", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(big)) }, "br, gzip;q=0.5", true},
		{"gzip refused", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(big)) }, "gzip;q=0, br", false},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		compress(tc.handler).ServeHTTP(rec, req)
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tc.gzipped {
			t.Errorf("%s: gzipped got %v, want %v", tc.name, got, tc.gzipped)
		}
		if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s: Vary got %q, want Accept-Encoding", tc.name, got)
		}
	}
}
