package main

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The wall display with 40 open jobs and 20 technicians fits every 16:9
// screen from 1280 x 720 to 3840 x 2160 (issue 42): the page scrolls
// neither way, every card, bay and technician shown lies whole inside the
// screen and inside its list, and what does not fit is on a later page
// ("page 1 of N"), so that the pages together show every job. The type
// keeps its documented scale. axe finds nothing serious.
func TestBrowserWallFortyJobs(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	db := storetest.SQLiteURL(t)
	base, loc := demoSignIn(t, b, db, workshop.RoleAdvisor)
	w := newWorld(t, db)
	ctx := context.Background()
	org := operator.DemoOrgID
	open := func() int {
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#board .job").length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	b.do(t, "the wall", chromedp.EmulateViewport(1280, 720), navigate(base+"/locations/"+loc+"/board?display=wall"), waitVisible(`.job-number`))
	for i := open(); i < 40; i++ {
		w.step(org, w.wallJob(org, loc, i).ID)
	}
	techs, err := w.st.PlanData(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(techs.Techs); i < 20; i++ {
		if _, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc, Name: fmt.Sprintf("Technician %d", i+1), WIPLimit: 2}); err != nil {
			t.Fatal(err)
		}
	}
	for _, screen := range []struct{ width, height int64 }{{1280, 720}, {1366, 768}, {1600, 900}, {1920, 1080}, {3840, 2160}} {
		size := strconv.Itoa(int(screen.width)) + "x" + strconv.Itoa(int(screen.height))
		b.do(t, "the wall at "+size, chromedp.EmulateViewport(screen.width, screen.height),
			navigate(base+"/locations/"+loc+"/board?display=wall"), waitVisible(`.job-number`))
		b.waitFor(t, "paged", `document.documentElement.classList.contains("wall-paged") && !!window.workshopWall`)
		// The pages are counted against one drawing of the board: a live
		// update during the count (the plan moved on as the minutes pass,
		// a technician's creation seen by the hub's tick) redraws the
		// board and may re-cut its pages, which the live tests cover.
		b.do(t, "stop the live updates", chromedp.Evaluate[chromedp.Void](`window.workshopLive && window.workshopLive.close()`))
		if n := open(); n < 40 {
			t.Fatalf("wall at %s: %d jobs on the page, want 40", size, n)
		}
		pages, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`window.workshopWall.pages()`))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for p := range pages {
			got, err := chromedp.Run(b.ctx, chromedp.Evaluate[struct {
				Outside, Cut []string
				Shown        []string
				Said         string
				Tall, Wide   float64
				Number       float64
			}](`(() => {
				const H = window.innerHeight, W = window.innerWidth, out = [], cut = [];
				const shown = [...document.querySelectorAll(".job, .bay, .tech, .count")].filter(e => e.offsetParent !== null);
				for (const e of shown) {
					const r = e.getBoundingClientRect(), list = e.closest("ul").getBoundingClientRect();
					if (r.top < 0 || r.left < 0 || r.bottom > H + .5 || r.right > W + .5) out.push(e.textContent.trim().slice(0, 30));
					if (r.bottom > list.bottom + .5 || r.right > list.right + .5 || e.scrollWidth > e.clientWidth) cut.push(e.textContent.trim().slice(0, 30));
				}
				return {Outside: out, Cut: cut, Shown: shown.filter(e => e.matches(".job")).map(e => e.querySelector(".job-number").textContent),
					Said: document.getElementById("wall-page").textContent,
					Tall: document.documentElement.scrollHeight - H, Wide: document.documentElement.scrollWidth - W,
					Number: parseFloat(getComputedStyle(document.querySelector(".job-number")).fontSize)};
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Outside) > 0 || len(got.Cut) > 0 || got.Tall > 0 || got.Wide > 0 {
				t.Errorf("wall at %s, page %d: outside the screen %v, cut by their list %v, page %v px too tall, %v px too wide",
					size, p+1, got.Outside, got.Cut, got.Tall, got.Wide)
			}
			if want := fmt.Sprintf("page %d of %d", p+1, pages); pages > 1 && got.Said != want {
				t.Errorf("wall at %s: says %q, want %q", size, got.Said, want)
			}
			if want := float64(screen.width) * 1.25 / 100; got.Number < want {
				t.Errorf("wall at %s: job numbers of %v px, want the scale's %v or more", size, got.Number, want)
			}
			for _, n := range got.Shown {
				seen[n] = true
			}
			if p == 0 && (screen.width == 1366 || screen.width == 1920) {
				b.screenshot(t, "wall-40-jobs-"+size)
			}
			b.do(t, "the next page", chromedp.Evaluate[chromedp.Void](`window.workshopWall.next()`))
		}
		if len(seen) < 40 {
			t.Errorf("wall at %s: its %d pages show %d jobs, want every one of the 40", size, pages, len(seen))
		}
		t.Logf("wall at %s: 40 jobs on %d pages", size, pages)
	}
	b.checkAccessible(t, "wall display with 40 jobs")
	// On a phone the wall is one column that scrolls, never wider than the screen.
	b.do(t, "a phone", chromedp.EmulateViewport(390, 844))
	if wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`)); err != nil || wide > 0 {
		t.Errorf("the wall on a phone is %v px wider than the screen (%v)", wide, err)
	}
	b.screenshot(t, "wall-40-jobs-390x844")

	// The dispatch day of the same 40 jobs and 20 technicians reads: no
	// bar or label over another, every bar with its job number and plate,
	// hour labels apart, at a desk and on a phone.
	for _, size := range []struct{ w, h int64 }{{1366, 768}, {390, 844}} {
		name := fmt.Sprintf("%dx%d", size.w, size.h)
		b.do(t, "the dispatch day at "+name, chromedp.EmulateViewport(size.w, size.h), navigate(base+"/locations/"+loc+"/dispatch"), waitVisible(`.timeline`))
		f, err := chromedp.Run(b.ctx, chromedp.Evaluate[dayFacts](dayFactsJS))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.TicksOverlap) > 0 || len(f.BarsOverlap) > 0 || len(f.Unlabelled) > 0 || f.Overflow > 0 {
			t.Errorf("dispatch of 40 jobs at %s: labels overlapping %v, bars overlapping %v, unlabelled %v, %v px wider than the screen",
				name, f.TicksOverlap, f.BarsOverlap, f.Unlabelled, f.Overflow)
		}
		b.checkAccessible(t, "dispatch of 40 jobs at "+name)
		b.screenshot(t, "dispatch-40-jobs-"+name)
	}
}

// wallJob is a job of a busy day: every other one booked (not arrived
// yet), the rest arrived, each with a plate, a vehicle and a promise.
func (w *testWorld) wallJob(orgID, locationID string, i int) workshop.Job {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	plate, make_, model := fmt.Sprintf("B-WL %d", 100+i), "Skoda", "Octavia"
	promise := workshop.OffsetTime{Time: time.Now().Add(time.Duration(2+i%9) * time.Hour)}
	j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: orgID, LocationID: locationID, Priority: "normal", Source: "other",
		CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}, VehiclePlate: &plate, VehicleMake: &make_, VehicleModel: &model,
		PromiseTime: &promise}
	res, err := w.st.CreateJob(context.Background(), j, i%2 == 1)
	if err != nil {
		w.t.Fatalf("create job: %v", err)
	}
	return res.Job
}
