package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An owner sets the workshop's week in a real browser: a break outside
// the hours is shown beside its field, the corrected week is saved, and a
// cancel reason is added and retired. The page passes axe-core and the
// shop-floor sizes, with and without errors.
func TestBrowserWorkshopSettings(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") }
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	o := w.org("Browser Settings", "pro", 1)
	appUser(t, w, o.ID, "boss@example.com", workshop.RoleOwner, testPassword)
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "boss@example.com")
	settings := srv.URL + "/locations/" + o.Locations[0].ID + "/settings"
	b.do(t, "the settings", navigate(settings), waitVisible(`#open-mon`))
	b.checkShopFloor(t, "workshop settings")

	b.do(t, "a break outside the hours", chromedp.SetValue(`#breaks-mon`, "06:00-06:30"),
		jsClick(`form[action$="/settings"] button[type="submit"]`))
	b.waitFor(t, "the error beside the field", `!!document.getElementById("breaks-mon-error")`)
	b.checkAccessible(t, "workshop settings with an error")
	b.do(t, "correct it and save", chromedp.SetValue(`#breaks-mon`, "12:00-12:45"), chromedp.SetValue(`#bayBufferMinutes`, "20"),
		jsClick(`form[action$="/settings"] button[type="submit"]`))
	b.waitFor(t, "saved", `!!document.querySelector(".notice") && document.getElementById("breaks-mon").value === "12:00-12:45"`)

	b.do(t, "add a reason", chromedp.SetValue(`#tag`, "no_show"), jsClick(`#add-tag button`))
	b.waitFor(t, "the reason listed", `document.body.textContent.includes("No show")`)
	b.do(t, "retire it", jsClick(`form[action$="/tags/no_show/retire"] button`))
	b.waitFor(t, "retired", `!!document.querySelector('input[name="tag"][value="no_show"] + input[name="label"]')`)
	b.checkShopFloor(t, "workshop settings with a retired reason")
}
