package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// screenshot saves what the tab shows as NAME.png in the directory
// WORKSHOP_SCREENSHOTS names, to be looked at; without it, nothing.
func (b *chrome) screenshot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("WORKSHOP_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("browser, screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// demoSignIn seeds the demo and signs in as its user of role: the Berlin
// location's id.
func demoSignIn(t *testing.T, b *chrome, db string, role workshop.Role) (base, locID string) {
	t.Helper()
	w := newWorld(t, db)
	out, err := w.op.Demo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, db)
	for _, u := range out.Users {
		if u.Role == role {
			b.do(t, "sign in as the demo's "+string(role), append(fillSignIn(srv.URL+"/login", u.Email, u.Password),
				chromedp.Poll[chromedp.Void](`location.pathname !== "/login" && document.querySelector("h1")`))...)
			return srv.URL, out.LocationIDs[0]
		}
	}
	t.Fatalf("the demo has no %s", role)
	return "", ""
}

// TestBrowserListsAligned (issue 27, item 5): in the Jobs, Technicians,
// Bays and Catalog tables every body cell starts and ends where its
// column's header does (the board's ul.jobs grid once made table.jobs a
// grid), on a desk screen and on a phone.
func TestBrowserListsAligned(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	base, loc := demoSignIn(t, b, storetest.SQLiteURL(t), workshop.RoleOwner)
	const misaligned = `[...document.querySelectorAll("main table")].flatMap(table => {
		const heads = [...table.tHead.rows[0].cells].map(c => c.getBoundingClientRect());
		return [...table.tBodies[0].rows].flatMap((row, r) => [...row.cells].flatMap((c, i) => {
			const got = c.getBoundingClientRect(), want = heads[i];
			return !want || Math.abs(got.left - want.left) > 1 || Math.abs(got.width - want.width) > 1
				? ["row " + (r + 1) + " cell " + (i + 1) + " at " + Math.round(got.left) + "+" + Math.round(got.width) +
					", header at " + (want ? Math.round(want.left) + "+" + Math.round(want.width) : "none")] : [];
		}));
	})`
	for _, page := range []struct{ name, path string }{
		{"jobs", "/locations/" + loc + "/jobs"}, {"technicians", "/locations/" + loc + "/technicians"},
		{"bays", "/locations/" + loc + "/bays"}, {"catalog", "/locations/" + loc + "/catalog"},
	} {
		for _, width := range []int64{1280, 390} {
			b.do(t, "open "+page.name, chromedp.EmulateViewport(width, 844), navigate(base+page.path), waitVisible(`main table tbody tr`))
			bad, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](misaligned))
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) > 0 {
				t.Errorf("%s at %d px: cells out of line with their headers: %v", page.name, width, bad)
			}
			b.screenshot(t, page.name+"-"+strconv.Itoa(int(width)))
		}
		b.checkAccessible(t, page.name)
	}
}

// TestBrowserWallFits (issue 27, item 6): the wall display on every
// screen from 1280 x 720 to 3840 x 2160 cuts no text: no card, count, bay
// or technician is wider inside than its box, the page does not scroll
// sideways, and the type grows with the screen.
func TestBrowserWallFits(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	base, loc := demoSignIn(t, b, storetest.SQLiteURL(t), workshop.RoleAdvisor)
	last := 0.0
	for _, screen := range []struct{ width, height int64 }{{1280, 720}, {1366, 768}, {1920, 1080}, {3840, 2160}} {
		size := strconv.Itoa(int(screen.width)) + "x" + strconv.Itoa(int(screen.height))
		b.do(t, "the wall at "+size, chromedp.EmulateViewport(screen.width, screen.height),
			navigate(base+"/locations/"+loc+"/board?display=wall"), waitVisible(`.job-number`))
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]any](`({
			cut: [...document.querySelectorAll(".job, .job-card, .count, .bay, .tech, .column")]
				.filter(e => e.scrollWidth > e.clientWidth)
				.map(e => e.className + " " + e.textContent.trim().slice(0, 40) + " " + e.scrollWidth + ">" + e.clientWidth),
			cards: document.querySelectorAll(".job").length,
			sideways: document.documentElement.scrollWidth - window.innerWidth,
			number: parseFloat(getComputedStyle(document.querySelector(".job-number")).fontSize)})`))
		if err != nil {
			t.Fatal(err)
		}
		if cut := got["cut"].([]any); len(cut) > 0 {
			t.Errorf("wall at %s: text cut in %v", size, cut)
		}
		if got["cards"].(float64) < 5 {
			t.Errorf("wall at %s: %v job cards, want the demo's jobs", size, got["cards"])
		}
		if got["sideways"].(float64) > 0 {
			t.Errorf("wall at %s: %v px wider than the screen", size, got["sideways"])
		}
		if n := got["number"].(float64); n <= last {
			t.Errorf("wall at %s: job numbers of %v px, want larger than on the smaller screen (%v px)", size, n, last)
		} else {
			last = n
		}
		if screen.width <= 1920 {
			b.screenshot(t, "wall-"+size)
		}
	}
	b.checkAccessible(t, "wall display")
}

// TestBrowserBoardLinks (issue 27, item 1): on the demo's board, as an
// advisor would, at a desk, on a laptop (its first job card on the
// screen), on a TV and on a phone: a job card opens its job, the "At
// risk" count the jobs at risk, "All jobs" every job, the filters narrow
// the board and the search box finds a job by part of its model, and by
// two characters the start of a word; axe finds nothing serious on any
// of them.
func TestBrowserBoardLinks(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	base, loc := demoSignIn(t, b, storetest.SQLiteURL(t), workshop.RoleAdvisor)
	board := base + "/locations/" + loc + "/board"
	for _, screen := range []struct{ width, height int64 }{{1280, 800}, {1366, 768}, {1920, 1080}, {390, 844}} {
		size := strconv.Itoa(int(screen.width)) + "x" + strconv.Itoa(int(screen.height))
		b.do(t, "the board at "+size, chromedp.EmulateViewport(screen.width, screen.height), navigate(board),
			waitVisible(`a.job-card`))
		b.screenshot(t, "board-"+size)
		sideways, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil || sideways > 0 {
			t.Errorf("board at %s: %d px wider than the screen (%v)", size, sideways, err)
		}
		if screen.width == 1366 {
			// A laptop shows job cards without scrolling past the
			// filters, a note of a day left open and the counts (issue
			// 43): the first card whole.
			bottom, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelector("a.job-card").getBoundingClientRect().bottom`))
			if err != nil || bottom > float64(screen.height) {
				t.Errorf("the board at %s: the first job card ends at %.0f px (%v), want on the screen", size, bottom, err)
			}
		}
		if screen.width >= 1280 {
			// Two rows: the locations and who is signed in, then the
			// location's pages (three took 175 px of a laptop's 800).
			header, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelector("header.bar").getBoundingClientRect().height`))
			if err != nil || header > 130 {
				t.Errorf("the header at %s is %.0f px high (%v), want at most 130", size, header, err)
			}
		}
	}
	b.checkAccessible(t, "board")

	b.do(t, "open a job from its card", chromedp.EmulateViewport(1280, 800), navigate(board), waitVisible(`a.job-card`),
		jsClick(`a.job-card`))
	b.waitFor(t, "the job page", `location.pathname.startsWith("/jobs/")`)
	b.do(t, "open the jobs at risk from the count", navigate(board), waitVisible(`.count.status-at_risk a`),
		jsClick(`.count.status-at_risk a`))
	b.waitFor(t, "the jobs at risk", `location.search === "?status=at_risk" && !!document.querySelector("h2#list-heading")`)
	if h := b.text(t, "#list-heading"); h != "Jobs at risk" {
		t.Errorf("the at-risk count opened %q, want the jobs at risk", h)
	}
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.jobs tbody tr").length`))
	if err != nil || rows == 0 {
		t.Errorf("the jobs at risk list %d jobs (%v), want the demo's", rows, err)
	}
	b.checkAccessible(t, "jobs at risk")
	b.do(t, "open every job from the All jobs count", navigate(board), waitVisible(`.count.status-total a`),
		jsClick(`.count.status-total a`))
	b.waitFor(t, "all jobs", `location.search === "?status=all" && !!document.querySelector("h2#list-heading")`)
	if h, rows := b.text(t, "#list-heading"), b.text(t, "table.jobs tbody"); h != "All jobs" || !strings.Contains(rows, "Delivered") ||
		!strings.Contains(rows, "Cancelled") {
		t.Errorf("the All jobs count opened %q listing %q, want every job, delivered and cancelled ones too", h, rows)
	}

	b.do(t, "filter the board to jobs in progress", navigate(board), waitVisible(`#filter-status`),
		chromedp.SetValue(`#filter-status`, "in_progress"), jsClick(`.board-filters button[type=submit]`))
	b.waitFor(t, "the filtered board", `location.search.includes("status=in_progress") && !!document.querySelector("a.job-card")`)
	cols, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".column h3")].map(h => h.textContent)`))
	if err != nil || len(cols) != 1 || cols[0] != "In progress" {
		t.Errorf("the filtered board shows the columns %v (%v), want In progress alone", cols, err)
	}
	b.screenshot(t, "board-filtered-1280x800")
	// By technician: the jobs with a step of theirs still to finish,
	// started or not.
	b.do(t, "filter the board to a technician's jobs", navigate(board), waitVisible(`#filter-tech`),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#filter-tech").selectedIndex = 1`),
		jsClick(`.board-filters button[type=submit]`))
	// (Which of the demo's jobs are theirs moves with the time of day; the
	// store's tests check which jobs the filter keeps.)
	b.waitFor(t, "the technician's board", `location.search.includes("tech=") && document.querySelector("#filter-tech").selectedIndex === 1
		&& !!document.querySelector(".column")`)
	b.screenshots(t, "board-by-technician")

	b.do(t, "find a job by part of its model", navigate(board), waitVisible(`#board-q`),
		chromedp.SendKeys(`#board-q`, "octav"), jsClick(`.board-search button`))
	b.waitFor(t, "the search", `location.pathname.endsWith("/jobs") && !!document.querySelector("table.jobs")`)
	if got := b.text(t, "table.jobs tbody"); !strings.Contains(got, "Skoda Octavia") {
		t.Errorf("searching octav found %q, want the Skoda Octavia", got)
	}
	b.screenshot(t, "search-1280x800")
	b.checkAccessible(t, "search")

	// Two characters find the start of any word (issue 43): every demo
	// plate of Berlin is "B-DM ...".
	b.do(t, "find jobs by two characters", navigate(board), waitVisible(`#board-q`),
		chromedp.SendKeys(`#board-q`, "dm"), jsClick(`.board-search button`))
	b.waitFor(t, "the search", `location.pathname.endsWith("/jobs") && location.search === "?q=dm"`)
	plates, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.jobs tbody tr td:nth-child(2)")].map(td => td.textContent)`))
	if err != nil || len(plates) < 5 {
		t.Errorf("searching dm found the plates %v (%v), want the demo's B-DM plates", plates, err)
	}
	for _, p := range plates {
		if !strings.HasPrefix(p, "B-DM ") {
			t.Errorf("searching dm found the plate %q, want B-DM plates only", p)
		}
	}
	b.screenshots(t, "search-dm")
	b.checkAccessible(t, "search by two characters")
}
