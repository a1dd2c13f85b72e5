package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestDocsImages takes the pictures of the README and docs/application.md
// from the demo, at 1366x768, into the directory WORKSHOP_DOCS_IMAGES
// names (docs/images: WORKSHOP_DOCS_IMAGES=$PWD/docs/images go test -run
// TestDocsImages ./cmd/workshop); without it the test skips. A person looks
// at them before committing; no test compares pixels.
func TestDocsImages(t *testing.T) {
	dir := os.Getenv("WORKSHOP_DOCS_IMAGES")
	if dir == "" {
		t.Skip("WORKSHOP_DOCS_IMAGES not set: no pictures taken")
	}
	b := newChrome(t)
	base, loc := demoSignIn(t, b, storetest.SQLiteURL(t), workshop.RoleOwner)
	for _, page := range []struct{ name, path, ready string }{
		{"board", "/locations/" + loc + "/board", "main h1"},
		{"dispatch", "/locations/" + loc + "/dispatch", "main h1"},
		{"dispatch-week", "/locations/" + loc + "/dispatch/week", "table.week"},
		{"wall", "/locations/" + loc + "/board?display=wall", ".job-number"},
		{"newjob", "/locations/" + loc + "/jobs/new", "main h1"},
		{"dayclose", "/locations/" + loc + "/day-close", "main h1"},
	} {
		b.do(t, "open "+page.name, chromedp.EmulateViewport(1366, 768), navigate(base+page.path), waitVisible(page.ready))
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("browser, picture of %s: %v", page.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, page.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
