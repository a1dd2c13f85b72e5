package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// chromiumPath is the headless browser of the browser tests; the test is
// skipped, saying so, when there is none and CI is not set.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("browser tests need Chromium in CI: apt-get install -y chromium")
	}
	t.Skip("browser tests skipped: no Chromium (apt-get install -y chromium)")
	return ""
}

// A person signs in in a real browser: a wrong password shows the message
// beside the form (htmx swaps the 401 in), the right one opens the board,
// and no page logs a console error.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	path := chromiumPath(t)
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	a := w.org("Browser Motors", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	srv := startServer(t, db)

	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, time.Minute)
	defer cancelTimeout()

	var mu sync.Mutex
	var consoleErrors []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// The browser logs the 401 of a wrong password, which the
			// contract asks for; anything else is an error of a page.
			expected := m.Source == "network" && strings.Contains(m.Text, "status of 401")
			if (m.IsException() || m.Type == "error") && !expected {
				mu.Lock()
				consoleErrors = append(consoleErrors, m.String())
				mu.Unlock()
			}
		}
	}()

	submit := chromedp.Click(`form[action="/login"] button[type="submit"]`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`input[name="email"]`),
		chromedp.SendKeys(`input[name="email"]`, "advisor@example.com"),
		chromedp.SendKeys(`input[name="password"]`, "not the password"),
		submit,
		chromedp.WaitVisible(`p.error[role="alert"]`),
	)
	if err != nil {
		t.Fatalf("browser, wrong password: %v", err)
	}
	if message, err := chromedp.Run(ctx, chromedp.Text(`p.error[role="alert"]`)); err != nil || message != "Wrong email or password." {
		t.Errorf("after a wrong password the page says %q (%v), want the sign-in message", message, err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(`input[name="password"]`, testPassword), submit, chromedp.WaitVisible(`#jobs-heading`)); err != nil {
		t.Fatalf("browser, right password: %v", err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text(`h1`))
	if err != nil {
		t.Fatal(err)
	}
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if heading != a.Locations[0].Name || !strings.HasSuffix(location, "/locations/"+a.Locations[0].ID+"/board") {
		t.Errorf("after signing in: heading %q at %s, want the board of %s", heading, location, a.Locations[0].Name)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %v", consoleErrors)
	}
}
