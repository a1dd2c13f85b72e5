package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Every page of the application, as the authorization matrix lists them,
// opened by an owner on a 390x844 phone and by an advisor with developer
// access: each one that answers passes axe-core (no serious or critical
// violation) and logs no console error but its own status. On the phone
// no page but the dispatch page and the wall display (whose own tests
// size them) is wider than the screen (issue 43): a wide table scrolls
// in its region.
func TestBrowserEveryPageAccessible(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	m := newMatrixWorld(t, db)
	srv := startServer(t, db)
	for _, email := range []string{m.users[workshop.RoleOwner].Email, m.advisorD.Email} {
		phone := email == m.users[workshop.RoleOwner].Email
		b := newChrome(t)
		b.allowed = func(text string) bool { return strings.Contains(text, "status of 40") }
		if phone {
			b.do(t, "sizing the window for a phone", chromedp.EmulateViewport(390, 844))
		}
		b.do(t, "sign in as "+email, append(fillSignIn(srv.URL+"/login", email, testPassword), waitVisible(`h1`))...)
		seen := 0
		for _, a := range appActions {
			if a.method != http.MethodGet || strings.Contains(a.path(m), ".csv") { // a download, not a page
				continue
			}
			path := a.path(m)
			b.do(t, "open "+a.name, navigate(srv.URL+path), waitVisible(`h1`))
			b.checkAccessible(t, a.name+" ("+email+")")
			if phone && !strings.Contains(path, "/dispatch") && !strings.Contains(path, "display=wall") {
				b.wantWithinScreen(t, a.name+" on a phone")
			}
			seen++
		}
		if seen < 20 {
			t.Errorf("%s opened %d pages, want every page of the matrix", email, seen)
		}
	}
}

// wantWithinScreen fails the test when the page shown is wider than the
// window (the page scrolls sideways), naming the widest elements that
// stick out of it outside a scrolling region.
func (b *chrome) wantWithinScreen(t *testing.T, page string) {
	t.Helper()
	over, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`document.documentElement.scrollWidth <= window.innerWidth ? [] :
		[String(document.documentElement.scrollWidth) + " px"].concat([...document.querySelectorAll("main *")]
			.filter(e => (e.getBoundingClientRect().right > window.innerWidth + 0.5 || e.scrollWidth > e.clientWidth + 0.5) && !e.closest(".table-scroll, .snippet"))
			.slice(0, 5).map(e => e.tagName.toLowerCase() + "." + String(e.className).replace(/ /g, ".") + " to " + Math.round(e.getBoundingClientRect().right)))`))
	if err != nil {
		t.Fatalf("browser, measuring %s: %v", page, err)
	}
	if len(over) > 0 {
		t.Errorf("%s: wider than the screen: %v", page, over)
	}
}
