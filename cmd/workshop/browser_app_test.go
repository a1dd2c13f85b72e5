package main

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A person signs in in a real browser: an email locked out by ten wrong
// passwords is refused even with the right one (429), a wrong password
// shows the message beside the form (htmx swaps the 401 in), the right one
// opens the board, and no page logs a console error.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	// The browser logs the 401 of a wrong password and the 429 of a
	// locked-out email, which the contract asks for; anything else is an
	// error of a page.
	b.allowed = func(text string) bool {
		return strings.Contains(text, "status of 401") || strings.Contains(text, "status of 429")
	}
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	a := w.org("Browser Motors", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	appUser(t, w, a.ID, "locked@example.com", workshop.RoleAdvisor, testPassword)
	srv := startServer(t, db)
	h := newBrowser(t, srv.URL)
	for range 10 {
		h.login("locked@example.com", "not the password", "").want(t, "a wrong password", http.StatusUnauthorized, "")
	}
	b.do(t, "sign in while locked out", append(fillSignIn(srv.URL+"/login", "locked@example.com", testPassword),
		waitVisible(`p.error[role="alert"]`))...)
	if got := b.text(t, `p.error[role="alert"]`); !strings.Contains(got, "locked") {
		t.Errorf("locked out, the page says %q, want that sign-in is locked", got)
	}
	b.checkAccessible(t, "sign-in locked out")

	b.do(t, "wrong password", append(fillSignIn(srv.URL+"/", "advisor@example.com", "not the password"),
		waitVisible(`p.error[role="alert"]`))...)
	if message := b.text(t, `p.error[role="alert"]`); message != "Wrong email or password." {
		t.Errorf("after a wrong password the page says %q, want the sign-in message", message)
	}
	b.checkAccessible(t, "sign-in with an error")
	b.do(t, "right password", chromedp.SendKeys(`input[name="password"]`, testPassword),
		jsClick(`form[action="/login"] button[type="submit"]`), waitVisible(`#jobs-heading`))
	heading, location := b.text(t, `h1`), b.location(t)
	if heading != a.Locations[0].Name || !strings.HasSuffix(location, "/locations/"+a.Locations[0].ID+"/board") {
		t.Errorf("after signing in: heading %q at %s, want the board of %s", heading, location, a.Locations[0].Name)
	}
	b.checkShopFloor(t, "board")
}

// The open board updates without a reload when a job is made through the
// API; the wall display does too, at 1920 px, without the header; on a
// 768-px tablet the board's columns collapse to two.
func TestBrowserLiveBoard(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	ctx := b.ctx
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	a := w.org("Browser Live Motors", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	srv := startServer(t, db)
	loc := a.Locations[0]

	createJob := func(plate string) string {
		t.Helper()
		r := mpCreateJob(http.DefaultClient, srv.URL, a.Key.Key, map[string]any{"locationId": loc.ID, "vehiclePlate": plate})
		if r.err != nil {
			t.Fatalf("create a job: %v", r.err)
		}
		return r.job.JobNumber
	}
	streamOpen := chromedp.Poll[bool](`window.workshopLive && window.workshopLive.readyState === 1`, chromedp.WithPollingTimeout(10*time.Second))
	onBoard := func(text string) chromedp.Action[bool] {
		return chromedp.Poll[bool](`document.getElementById("board").textContent.includes(`+strconv.Quote(text)+`)`,
			chromedp.WithPollingTimeout(3*time.Second))
	}

	b.do(t, "a wide window", chromedp.EmulateViewport(1280, 900))
	b.signIn(t, srv.URL, "advisor@example.com")
	if _, err := chromedp.Run(ctx, streamOpen); err != nil {
		t.Fatalf("the board's stream did not open: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	number := createJob("BRO-1")
	if _, err := chromedp.Run(ctx, onBoard(number)); err != nil {
		t.Fatalf("job %s not on the open board within 3 s: %v", number, err)
	}
	t.Logf("browser: API write on the open board in %v", time.Since(start))
	if kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !kept {
		t.Errorf("the board was reloaded to show the job (%v)", err)
	}

	b.checkShopFloor(t, "board with a job")

	// A 768-px tablet: two columns of jobs.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(768, 1024)); err != nil {
		t.Fatal(err)
	}
	cols, err := chromedp.Run(ctx, chromedp.Evaluate[int](`getComputedStyle(document.querySelector(".columns")).gridTemplateColumns.split(" ").length`))
	if err != nil || cols != 2 {
		t.Errorf("at 768 px the board has %d columns (%v), want 2", cols, err)
	}

	// The wall display at 1920 px: no header, five columns, large type, live.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080), navigate(srv.URL+"/locations/"+loc.ID+"/board?display=wall"),
		waitVisible(`#jobs-heading`)); err != nil {
		t.Fatalf("wall display: %v", err)
	}
	if _, err := chromedp.Run(ctx, streamOpen); err != nil {
		t.Fatalf("the wall's stream did not open: %v", err)
	}
	wall, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`({header: !!document.querySelector("header.bar, form[action='/logout']"),
		cols: getComputedStyle(document.querySelector(".columns")).gridTemplateColumns.split(" ").length,
		number: parseFloat(getComputedStyle(document.querySelector(".job-number")).fontSize)})`))
	if err != nil {
		t.Fatal(err)
	}
	if wall["header"] != false || wall["cols"] != float64(5) || wall["number"].(float64) < 30 {
		t.Errorf("wall display: %v; want no header, 5 columns, job numbers of 30 px or more", wall)
	}
	start = time.Now()
	number = createJob("WALL-2")
	if _, err := chromedp.Run(ctx, onBoard(number)); err != nil {
		t.Fatalf("job %s not on the wall display within 3 s: %v", number, err)
	}
	t.Logf("browser: API write on the wall display in %v", time.Since(start))

	// The server restarts (on the same address and database): the wall's
	// stream reconnects by itself, and shows a change made afterwards,
	// without a reload.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("board").classList.contains("live-lost")`,
		chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("the wall does not show its stream lost: %v", err)
	}
	srv = startServer(t, db, func(c *apitest.Config) { c.Addr = srv.Addr })
	if _, err := chromedp.Run(ctx, streamOpen); err != nil {
		t.Fatalf("the wall's stream did not reconnect after a restart: %v", err)
	}
	number = createJob("AFTER-3")
	if _, err := chromedp.Run(ctx, onBoard(number)); err != nil {
		t.Fatalf("job %s not on the wall display after a restart: %v", number, err)
	}
	if kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded === true && !document.getElementById("board").classList.contains("live-lost")`)); err != nil || !kept {
		t.Errorf("after the restart the wall was reloaded or still shows the stream lost (%v)", err)
	}
}

// The first run in a browser: the printed setup link makes the
// organisation, its location and its owner, who lands on the board.
func TestBrowserSetupLink(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	var stdout apitest.LogBuffer
	base := serveWritingTo(t, storetest.SQLiteURL(t), &stdout)
	link := regexp.MustCompile(`(?m)^setup: (http://\S+/setup/\S+)$`).FindStringSubmatch(stdout.String())
	if link == nil {
		t.Fatalf("no setup line: %q", stdout.String())
	}
	b.do(t, "the setup page", navigate(link[1]), waitVisible(`input[name="orgName"]`))
	b.checkShopFloor(t, "setup page")
	b.do(t, "set up",
		chromedp.SendKeys(`input[name="orgName"]`, "Garage Nord"),
		chromedp.SendKeys(`input[name="locationName"]`, "Hamburg"),
		chromedp.SetValue(`[name="timezone"]`, "Europe/Berlin"),
		chromedp.SetValue(`[name="currency"]`, "EUR"),
		chromedp.SendKeys(`input[name="email"]`, "boss@example.com"),
		chromedp.SendKeys(`input[name="password"]`, testPassword),
		jsClick(`main form button[type="submit"]`),
		waitVisible(`#jobs-heading`),
	)
	if heading := b.text(t, "h1"); heading != "Hamburg" {
		t.Errorf("after setup the board is %q, want Hamburg's", heading)
	}
	if !strings.HasPrefix(b.location(t), base+"/locations/") {
		t.Errorf("after setup the browser is at %s, want a board of %s", b.location(t), base)
	}
}

// On PostgreSQL, a board open in a browser on one server shows a job made
// through the API of another server on the same database, without a
// reload.
func TestBrowserLiveBoardAcrossProcesses(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t) // skips without WORKSHOP_TEST_POSTGRES_URL
	b := newChrome(t)
	w := newWorld(t, dbURL)
	a := w.org("Browser Two Process", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	first, second := startServer(t, dbURL), startServer(t, dbURL)
	b.signIn(t, first.URL, "advisor@example.com")
	b.waitFor(t, "the board's stream", `window.workshopLive && window.workshopLive.readyState === 1`)
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := mpCreateJob(http.DefaultClient, second.URL, a.Key.Key, map[string]any{"locationId": a.Locations[0].ID, "vehiclePlate": "PG-2"})
	if r.err != nil {
		t.Fatalf("create a job on the second server: %v", r.err)
	}
	b.waitFor(t, "the job on the first server's board", `document.getElementById("board").textContent.includes(`+strconv.Quote(r.job.JobNumber)+`)`)
	t.Logf("browser, postgres, across processes: %v", time.Since(start))
	if kept, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !kept {
		t.Errorf("the board was reloaded to show the job (%v)", err)
	}
}
