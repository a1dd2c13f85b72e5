package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshots saves the page shown as a laptop (1366x768) and a phone
// (390x844) see it, into $WORKSHOP_SCREENSHOTS when it is set (a person
// looks at them; no test compares pixels), and leaves the window at
// 1366x768.
func (b *chrome) screenshots(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("WORKSHOP_SCREENSHOTS")
	if dir == "" {
		return
	}
	for _, size := range []struct {
		suffix        string
		width, height int64
	}{{"phone", 390, 844}, {"laptop", 1366, 768}} {
		b.do(t, "sizing the window for a "+size.suffix, chromedp.EmulateViewport(size.width, size.height))
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+size.suffix+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
