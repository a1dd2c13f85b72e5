package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A person signs in in a real browser: a wrong password shows the message
// beside the form (htmx swaps the 401 in), the right one opens the board,
// and no page logs a console error.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	// The browser logs the 401 of a wrong password, which the contract
	// asks for; anything else is an error of a page.
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 401") }
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	a := w.org("Browser Motors", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	srv := startServer(t, db)

	submit := chromedp.Click(`form[action="/login"] button[type="submit"]`)
	b.do(t, "wrong password",
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`input[name="email"]`),
		chromedp.SendKeys(`input[name="email"]`, "advisor@example.com"),
		chromedp.SendKeys(`input[name="password"]`, "not the password"),
		submit,
		chromedp.WaitVisible(`p.error[role="alert"]`),
	)
	if message := b.text(t, `p.error[role="alert"]`); message != "Wrong email or password." {
		t.Errorf("after a wrong password the page says %q, want the sign-in message", message)
	}
	b.checkAccessible(t, "sign-in with an error")
	b.do(t, "right password", chromedp.SendKeys(`input[name="password"]`, testPassword), submit, chromedp.WaitVisible(`#jobs-heading`))
	heading, location := b.text(t, `h1`), b.location(t)
	if heading != a.Locations[0].Name || !strings.HasSuffix(location, "/locations/"+a.Locations[0].ID+"/board") {
		t.Errorf("after signing in: heading %q at %s, want the board of %s", heading, location, a.Locations[0].Name)
	}
	b.checkShopFloor(t, "board")
}
