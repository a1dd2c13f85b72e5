package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An owner in a real browser opens the organisation, makes a location
// (it shows in the header) and invites a user; the user opens the link,
// chooses a password, and later signs in with it. Every organisation page
// passes axe-core.
func TestBrowserOrganisationInvite(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Browser Org Motors", "pro", 1)
	appUser(t, w, org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
	w.job(org.ID, org.Locations[0].ID) // its time zone change asks for confirmation
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "boss@example.com")

	b.do(t, "the organisation page", jsClick(`header a[href="/organisation"]`), waitVisible(`#users-heading`))
	b.checkAccessible(t, "organisation page")

	b.do(t, "the new location page", jsClick(`a[href="/organisation/locations/new"]`), waitVisible(`#timezone`))
	b.checkAccessible(t, "new location page")
	b.do(t, "create a location",
		chromedp.SendKeys(`#name`, "Harbour"),
		chromedp.SendKeys(`#timezone`, "Europe/Lisbon"),
		jsClick(`main form button[type="submit"]`),
	)
	b.waitFor(t, "the new location in the header", `[...document.querySelectorAll('nav[aria-label="Locations"] a')].some(a => a.textContent === "Harbour")`)

	b.do(t, "invite a user",
		chromedp.SendKeys(`#email`, "new@example.com"),
		chromedp.SetValue(`#role`, "advisor"),
		jsClick(`form[action="/organisation/users"] button[type="submit"]`),
		waitVisible(`#invite-link`),
	)
	b.checkAccessible(t, "organisation page with an invite link")
	b.waitFor(t, "the address after the invite is one a reload can open", `location.pathname === "/organisation"`)
	link, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("invite-link").value`))
	if err != nil || !strings.HasPrefix(link, srv.URL+"/invite/") {
		t.Fatalf("invite link = %q, %v; want one on %s", link, err, srv.URL)
	}
	b.do(t, "copy the link", jsClick(`button.copy`))
	b.waitFor(t, "the copy button answers", `document.querySelector("button.copy").textContent !== "Copy the link"`)

	b.do(t, "the page of a location with jobs", jsClick(`a[href="/organisation/locations/`+org.Locations[0].ID+`"]`),
		waitVisible(`#zone-warning`))
	b.checkAccessible(t, "location page")
	b.do(t, "back", jsClick(`main a[href="/organisation"]`), waitVisible(`#users-heading`))

	b.do(t, "the user's page", jsClick(`a[href^="/organisation/users/"]`), waitVisible(`#role-heading`))
	b.checkAccessible(t, "user page")
	b.do(t, "sign out", jsClick(`form[action="/logout"] button`), waitVisible(`input[name="email"]`))

	b.do(t, "open the invite", navigate(link), waitVisible(`#password`))
	b.do(t, "choose a password",
		chromedp.SendKeys(`#password`, testPassword),
		chromedp.SendKeys(`#confirm`, testPassword),
		jsClick(`main form button[type="submit"]`),
		waitVisible(`#jobs-heading`),
	)
	b.do(t, "sign out again", jsClick(`form[action="/logout"] button`), waitVisible(`input[name="email"]`))
	b.signIn(t, srv.URL, "new@example.com")
	if who := b.text(t, "header .user"); !strings.HasPrefix(who, "new@example.com") {
		t.Errorf("signed in as %q, want new@example.com", who)
	}
}
