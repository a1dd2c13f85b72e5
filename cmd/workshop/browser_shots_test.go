package main

import (
	"os"
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
		b.screenshot(t, name+"-"+size.suffix)
	}
}
