package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// The day close in a real browser, on two processes of one PostgreSQL:
// started on the first, an API write on the second is refused at once
// and the banner shows; each open item is decided on the page; after the
// finish the second process takes the write. Every page of the close
// passes axe-core and the shop-floor sizes.
func TestBrowserDayCloseAcrossProcesses(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t) // skips without WORKSHOP_TEST_POSTGRES_URL
	b := newChrome(t)
	dc := newDayCloseWorld(t, dbURL)
	first, second := startServer(t, dbURL), startServer(t, dbURL)
	b.do(t, "sign in", append(fillSignIn(first.URL+"/login", dc.advisor, testPassword), waitVisible(`#jobs-heading`))...)
	b.do(t, "open the day close", navigate(first.URL+dc.closePath), waitVisible(`form[action$="/day-close/start"]`))
	b.checkAccessible(t, "day close, open")
	b.do(t, "start the close of today", jsClick(`form.start-close:has(input[value="`+dc.today+`"]) button`))
	b.waitFor(t, "the checklist", `!!document.querySelector('#section-step') && !!document.querySelector('.banner')`)
	b.checkAccessible(t, "day close, checklist")
	b.checkShopFloor(t, "day close, checklist")
	b.screenshots(t, "dayclose-checklist")

	patch := func() *apitest.Response {
		return apitest.Call(t, second.URL, apitest.Request{Method: "PATCH", Key: dc.org.Key.Key,
			Path: "/v1/scheduler/jobs/" + dc.booking.ID, Body: map[string]any{"updatedAt": dc.booking.UpdatedAt.String(), "priority": "high"}})
	}
	wantProblem(t, patch(), http.StatusConflict, "day_close_in_progress", "")

	for _, sel := range []string{
		`form[action$="/steps/` + dc.step.ID + `/complete"] button`,
		`form[action$="/technicians/` + dc.tech.ID + `/clock-out"] button`,
		`#booking-` + dc.booking.ID + ` form[action$="/carry-over"] button`,
	} {
		b.waitFor(t, "the item's button", `!!document.querySelector(`+strconv.Quote(sel)+`)`)
		b.do(t, "decide "+sel, jsClick(sel))
		b.waitFor(t, "the item decided", `!document.querySelector(`+strconv.Quote(sel)+`)`)
		b.waitFor(t, "the decision confirmed in view", `(() => { const m = document.querySelector('#close-done');
			if (!m || !m.textContent.startsWith('Done: ')) return false;
			const r = m.getBoundingClientRect(); return r.top > -1 && r.bottom <= innerHeight; })()`) // scrolled to: the top may be a fraction above 0
	}
	b.waitFor(t, "finish enabled", `!document.querySelector('form[action$="/day-close/finish"] button').disabled`)
	b.screenshots(t, "dayclose-decided")
	b.checkAccessible(t, "day close, an item carried over")
	b.do(t, "finish", jsClick(`form[action$="/day-close/finish"] button`))
	b.waitFor(t, "the closed day", `location.pathname.startsWith('/day-closes/') && !!document.querySelector('#summary-heading')`)
	b.screenshots(t, "dayclose-summary")
	b.checkAccessible(t, "closed day")
	// On a phone every figure of the summary is on the screen, beside
	// its label (the longest label once pushed them off its right edge).
	b.do(t, "the closed day on a phone", chromedp.EmulateViewport(390, 844))
	offscreen, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".facts dd")].
		filter(dd => dd.getBoundingClientRect().right > innerWidth || dd.getBoundingClientRect().width === 0).map(dd => dd.textContent)`))
	if err != nil || len(offscreen) > 0 {
		t.Errorf("on a phone the summary's figures %q are off the screen (%v), want every one in view", offscreen, err)
	}
	if got := b.text(t, "#carried-heading + ul"); !strings.Contains(got, "carried over by") {
		t.Errorf("the closed day's list of what was left open says %q, want the carried-over item and who decided", got)
	}
	// The day close page with its closed days, on a phone: the page is no
	// wider than the screen (the closed days' table scrolls in its place).
	b.do(t, "the day close again, on a phone", navigate(first.URL+dc.closePath), waitVisible(`#closed-heading + .table-scroll table`))
	if overflow, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - innerWidth`)); err != nil || overflow > 0 {
		t.Errorf("the day close page with its closed days is %d px wider than a phone (%v)", overflow, err)
	}
	b.checkAccessible(t, "day close with its closed days, on a phone")
	b.do(t, "a laptop again", chromedp.EmulateViewport(1366, 768))
	if res := patch(); res.Status != http.StatusOK {
		t.Errorf("API write on the second process after the finish: %d %s", res.Status, res.Body)
	}
}

// Friday closed on Saturday morning in a real browser, on a laptop and on
// a phone (issue 43, item 1): the board's note of Friday goes while its
// close is under way; the checklist is Friday's alone, offering Friday's
// closing time; the summary counts the decisions as they are made. Each
// page passes axe-core.
func TestBrowserDayCloseTheMorningAfter(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") } // the completion on Saturday
	db := storetest.SQLiteURL(t)
	m := newMorningAfter(t, db)
	srv := startServerAt(t, db, m.now)
	b.do(t, "a laptop", chromedp.EmulateViewport(1366, 768))
	b.signIn(t, srv.URL, m.advisor)
	b.waitFor(t, "the note of Friday", `(document.querySelector(".left-open") || {}).textContent?.includes("has not been closed")`)
	b.do(t, "the day close", jsClick(`.left-open a`), waitVisible(`form.start-close`))
	b.do(t, "start Friday's close", jsClick(`form.start-close:has(input[value="`+m.friday+`"]) button`))
	b.waitFor(t, "Friday's checklist", `!!document.querySelector("#step-`+m.brakes.ID+`")`)
	if got := b.text(t, "main"); strings.Contains(got, "Saturday's step") || strings.Contains(got, "Aylin Demir clocked in") {
		t.Errorf("Friday's checklist shows Saturday's work: %q", got)
	}
	if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#at-step-`+m.brakes.ID+`").value`)); err != nil ||
		got != m.friday+"T17:30" {
		t.Errorf("Brakes offered as completed at %q, want Friday's closing time %sT17:30", got, m.friday)
	}
	b.checkAccessible(t, "Friday's close on Saturday morning")
	b.screenshots(t, "dayclose-morning-after")
	b.do(t, "a laptop again", chromedp.EmulateViewport(1366, 768))

	// The browser holds a completion after Friday back itself (the
	// field's max); without that check the server refuses it, saying why
	// beside the step.
	b.do(t, "a completion on Saturday", chromedp.SetValue("#at-step-"+m.brakes.ID, m.saturday+"T06:00"))
	if over, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelector("#at-step-`+m.brakes.ID+`").validity.rangeOverflow`)); err != nil || !over {
		t.Errorf("a completion on Saturday is within the field's range (%v), want over its max", err)
	}
	b.do(t, "send it unchecked", chromedp.Evaluate[chromedp.Void](`document.querySelector("#step-`+m.brakes.ID+` form[action$='/complete']").noValidate = true`),
		jsClick(`#step-`+m.brakes.ID+` form[action$="/complete"] button`))
	b.waitFor(t, "the refusal beside Brakes", `(document.querySelector("#step-`+m.brakes.ID+` .error") || {}).textContent?.includes("by the end of `+long(m.friday)+`")`)
	b.screenshots(t, "dayclose-morning-after-refused")
	b.do(t, "a laptop again", chromedp.EmulateViewport(1366, 768))
	b.do(t, "carry Brakes over", jsClick(`#step-`+m.brakes.ID+` form[action$="/carry-over"] button`))
	b.waitFor(t, "the summary counts it", `[...document.querySelectorAll("#summary-heading + .facts dt")].
		some(dt => dt.textContent === "Items carried over" && dt.nextElementSibling.textContent === "1")`)

	b.do(t, "the board during the close", navigate(srv.URL+"/locations/"+m.loc.ID+"/board"), waitVisible(`.banner`))
	if shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector(".left-open")`)); err != nil || shown {
		t.Errorf("the board during Friday's close notes Friday was not closed (%v), want the close's banner alone", err)
	}
}
