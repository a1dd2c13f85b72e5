package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An owner in a real browser makes a technician, edits them (once into a
// conflict with a status change made meanwhile) and deletes them; then
// makes a bay, puts it into maintenance and deletes it. The list and
// edit pages pass axe-core and the shop-floor sizes.
func TestBrowserResources(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	// The browser logs the 409 of the conflict this test provokes.
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 409") }
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Browser Resource Motors", "pro", 1)
	loc := org.Locations[0]
	appUser(t, w, org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
	jonas := appUser(t, w, org.ID, "jonas@example.com", workshop.RoleTechnician, testPassword)
	v := store.Visibility{OrgID: org.ID}
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "boss@example.com")
	h1Has := func(s string) string {
		return `(document.querySelector("h1") || {textContent: ""}).textContent.includes(` + strconv.Quote(s) + `)`
	}

	// A technician: created, edited, a conflict, deleted.
	b.do(t, "the technicians", jsClick(`a[href="/locations/`+loc.ID+`/technicians"]`), waitVisible(`#new-heading`))
	b.checkShopFloor(t, "technician list")
	b.do(t, "create a technician",
		chromedp.SendKeys(`#name`, "Jonas Weber"),
		chromedp.SendKeys(`#skills`, "ev, brakes"),
		chromedp.SetValue(`#wipLimit`, "3"),
		chromedp.SetValue(`#userId`, jonas.ID),
		jsClick(`form[action$="/technicians"] button[type="submit"]`),
	)
	b.waitFor(t, "the technician's page", h1Has("Jonas Weber")+` && !!document.getElementById("edit-heading")`)
	b.checkShopFloor(t, "technician page")
	techID := strings.TrimPrefix(mustURL(t, b.location(t)).Path, "/technicians/")
	b.do(t, "rename", chromedp.SetValue(`form[action$="/edit"] #name`, "Jonas W."), jsClick(`form[action$="/edit"] button[type="submit"]`))
	b.waitFor(t, "the renamed technician", h1Has("Jonas W."))
	tech, err := w.st.Technician(ctx, v, techID)
	if err != nil || tech.Name != "Jonas W." || tech.WIPLimit != 3 || strings.Join(tech.Skills, ",") != "ev,brakes" {
		t.Fatalf("after the edit the technician is %+v (%v), want Jonas W., 3, ev and brakes", tech, err)
	}
	if _, err := w.st.PatchTechnicianStatus(ctx, v, techID, tech.UpdatedAt, "on_break", workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	b.do(t, "save a stale edit", chromedp.SetValue(`form[action$="/edit"] #name`, "Stale"), jsClick(`form[action$="/edit"] button[type="submit"]`),
		waitVisible(`form[action$="/edit"] p.error[role="alert"]`))
	if got, err := chromedp.Run(b.ctx, chromedp.Value(`form[action$="/edit"] #name`)); err != nil || got != "Jonas W." {
		t.Errorf("after the conflict the name field shows %q (%v), want the current Jonas W.", got, err)
	}
	b.checkAccessible(t, "technician page with a conflict")
	b.do(t, "delete the technician", jsClick(`form[action$="/delete"] button`))
	b.waitFor(t, "the list without them", `!!document.getElementById("new-heading") && !document.querySelector("main table")`)
	if _, err := w.st.Technician(ctx, v, techID); workshop.ErrorCode(err) != workshop.CodeNotFound {
		t.Errorf("the deleted technician reads %v, want not found", err)
	}

	// A bay: created, into maintenance, deleted.
	// The technicians' list has a #new-heading too: wait for the bays'
	// own form, or the keys go to the page being left (CI, session 8).
	b.do(t, "the bays", jsClick(`a[href="/locations/`+loc.ID+`/bays"]`))
	b.waitFor(t, "the bays' form", `!!document.querySelector('form[action$="/bays"]')`)
	b.do(t, "create a bay", chromedp.SendKeys(`#name`, "Lift 1"), chromedp.SendKeys(`#equipment`, "lift"),
		jsClick(`form[action$="/bays"] button[type="submit"]`))
	b.waitFor(t, "the bay's page", h1Has("Lift 1")+` && !!document.getElementById("status-heading")`)
	b.checkShopFloor(t, "bay page")
	b.do(t, "into maintenance", jsClick(`form[action$="/status"] button`))
	b.waitText(t, "the bay in maintenance", "h1 .status", "In maintenance")
	b.do(t, "back to the bays", jsClick(`main a[href="/locations/`+loc.ID+`/bays"]`))
	b.waitFor(t, "the bays with it", `!!document.querySelector('form[action$="/bays"]') && !!document.querySelector("main table")`)
	b.checkShopFloor(t, "bay list")
	b.do(t, "the bay again", jsClick(`main table a`), waitVisible(`#delete-heading`))
	b.do(t, "delete the bay", jsClick(`form[action$="/delete"] button`))
	b.waitFor(t, "the bays without it", `!!document.getElementById("new-heading") && !document.querySelector("main table")`)
}
