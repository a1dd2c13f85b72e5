package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// dispatchShop is a location with work to dispatch: four technicians
// (Dora unavailable, Ben the only one with the high-voltage skill), three
// bays (Lift 3 in maintenance, Lift 2 offering only tyres), jobs of two
// steps each, one step shared by Ana and Ben and one no technician can do.
type dispatchShop struct {
	org                 *testOrg
	loc                 workshop.Location
	ana, ben, cem       workshop.Technician
	lift1, lift2, lift3 workshop.Bay
	jobs                []workshop.Job
	shared, lonely      workshop.Step
}

func newDispatchShop(t *testing.T, w *testWorld) *dispatchShop {
	t.Helper()
	ctx := context.Background()
	s := &dispatchShop{org: w.org("Timeline Motors", "pro", 1)}
	s.loc = s.org.Locations[0]
	vis := store.Visibility{OrgID: s.org.ID}
	tech := func(name string, skills ...string) workshop.Technician {
		tc, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: s.loc.ID, Name: name, Skills: skills, WIPLimit: 3})
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	s.ana, s.ben, s.cem = tech("Ana Petrova"), tech("Ben Okafor", "high_voltage"), tech("Cem Yilmaz")
	dora := tech("Dora Lindqvist")
	if _, err := w.st.PatchTechnicianStatus(ctx, vis, dora.ID, dora.UpdatedAt, "unavailable", workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	bay := func(name string, services ...string) workshop.Bay {
		b, err := w.op.CreateBay(ctx, s.loc.ID, name, nil, services)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s.lift1, s.lift2, s.lift3 = bay("Lift 1"), bay("Lift 2", "TYRES"), bay("Lift 3")
	if _, err := w.st.PatchBayStatus(ctx, vis, s.lift3.ID, s.lift3.UpdatedAt, "maintenance", workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	w.catalogItem(s.org.ID, s.loc.ID, "TYRES", "Tyre change", 45)
	w.catalogItem(s.org.ID, s.loc.ID, "EV-HV", "High voltage check", 60)
	now := workshop.MicrosOf(time.Now())
	if _, err := w.st.PutCatalogItem(ctx, workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: s.org.ID,
		LocationID: s.loc.ID, ServiceCode: "EV-ISO", Name: "Isolation test", EstimatedDuration: 60,
		RequiredSkills: []string{"isolation"}, IsActive: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	step := func(job workshop.Job, label string, minutes int, code string, techs ...string) workshop.Step {
		var sc *string
		if code != "" {
			sc = &code
		}
		if techs == nil {
			techs = []string{}
		}
		st, err := w.st.CreateStep(ctx, vis, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: job.ID, Label: label,
			ServiceCode: sc, SchedulingMode: "sequential", EstimatedDuration: minutes, TechIDs: techs,
			Status: workshop.StepPending, CreatedAt: workshop.MicrosOf(time.Now()), UpdatedAt: workshop.MicrosOf(time.Now())})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	plates := []string{"B-AP 1042", "B-KL 77", "M-XY 3120", "HH-EV 9"}
	for i, plate := range plates {
		p := plate
		res, err := w.st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: s.org.ID, LocationID: s.loc.ID,
			VehiclePlate: &p, Priority: "normal", Source: "walk_in", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
		if err != nil {
			t.Fatal(err)
		}
		j := res.Job
		s.jobs = append(s.jobs, j)
		switch i {
		case 0:
			step(j, "Inspection and brake fluid", 90, "")
			step(j, "Tyre change", 45, "TYRES")
		case 1:
			s.shared = step(j, "Gearbox out", 120, "", s.ana.ID, s.ben.ID)
			step(j, "Road test", 30, "")
		case 2:
			step(j, "Oil service", 60, "")
			step(j, "Wipers", 15, "")
		case 3:
			step(j, "High voltage check", 60, "EV-HV")
			s.lonely = step(j, "Isolation test", 60, "EV-ISO")
		}
	}
	return s
}

// screenshot saves the page as the viewport shows it, full height, in
// the test's output directory (WORKSHOP_SCREENSHOTS, else a temporary one)
// for a person to look at.
func (b *chrome) screenshot(t *testing.T, name string, width, height int64) {
	t.Helper()
	dir := os.Getenv("WORKSHOP_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	b.do(t, "sizing for "+name, chromedp.EmulateViewport(width, height))
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(dir, name+"-"+strconv.FormatInt(width, 10)+"x"+strconv.FormatInt(height, 10)+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}

// The timeline as an advisor first sees it: a row per technician with
// the hours, the shading, the bars labelled in full, the unplaceable step
// in the tray with its reason, the unavailable technician; the switch to
// bays; every bar's full text as its name. axe finds nothing serious.
func TestBrowserDispatchTimeline(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	s := newDispatchShop(t, w)
	appUser(t, w, s.org.ID, "advisor@timeline.example", workshop.RoleAdvisor, testPassword)
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "advisor@timeline.example")
	b.do(t, "open dispatch", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/locations/"+s.loc.ID+"/dispatch"),
		chromedp.WaitVisible(`.timeline`))

	facts, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]any](`({
		rows: [...document.querySelectorAll(".tl-row[data-row]")].map(r => r.dataset.name),
		ticks: document.querySelectorAll(".tick").length,
		shared: document.querySelectorAll('.tl-bar.shared[data-step="`+s.shared.ID+`"]').length,
		unnamed: [...document.querySelectorAll(".tl-bar a")].filter(a => !a.getAttribute("aria-label") || !a.closest(".tl-bar").getAttribute("title")).map(a => a.outerHTML.slice(0, 200)),
		twice: [...document.querySelectorAll(".tl-row[data-row]")].filter(r => {
			const ids = [...r.querySelectorAll(".tl-bar")].map(b => b.dataset.step); return new Set(ids).size !== ids.length }).length,
		tray: document.querySelector(".tray-steps") ? document.querySelector(".tray-steps").innerText : "",
		off: [...document.querySelectorAll(".tl-row.off")].map(r => r.dataset.name),
		proposed: document.querySelectorAll(".tl-bar.proposed").length,
	})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("timeline: %v", facts)
	if rows := facts["rows"].([]any); len(rows) != 4 {
		t.Errorf("rows %v, want the 4 technicians", rows)
	}
	if facts["ticks"].(float64) < 9 {
		t.Errorf("%v hour ticks, want a working day's", facts["ticks"])
	}
	if facts["shared"].(float64) != 2 {
		t.Errorf("the shared step is in %v rows, want Ana's and Ben's", facts["shared"])
	}
	if len(facts["unnamed"].([]any)) != 0 || facts["twice"].(float64) != 0 {
		t.Errorf("%v bars without a full name, %v rows listing a step twice; want none", facts["unnamed"], facts["twice"])
	}
	if tray := facts["tray"].(string); !strings.Contains(tray, "Isolation test") || !strings.Contains(tray, "No technician has the skills") {
		t.Errorf("tray %q, want the isolation test and why", tray)
	}
	if off := facts["off"].([]any); len(off) != 1 || off[0] != "Dora Lindqvist" {
		t.Errorf("rows marked off %v, want Dora unavailable", off)
	}
	b.checkAccessible(t, "dispatch by technician")
	b.screenshot(t, "dispatch-techs", 1280, 800)
	b.screenshot(t, "dispatch-techs", 1920, 1080)

	b.do(t, "switch to bays", jsClick(`.row-switch a:last-child`), chromedp.WaitVisible(`.tl-row.off[data-name="Lift 3"]`))
	b.checkAccessible(t, "dispatch by bay")
	b.screenshot(t, "dispatch-bays", 1280, 800)

	// Accept one proposed bar: the message says which step went where.
	b.do(t, "accept one", jsClick(`.tl-bar.proposed form button`), chromedp.WaitVisible(`#dispatch-message`))
	if msg := b.text(t, "#dispatch-message"); !strings.Contains(msg, "Accepted ") || !strings.Contains(msg, " · ") {
		t.Errorf("after accepting one step: %q", msg)
	}
	b.do(t, "accept all", jsClick(`.accept-all button`), chromedp.WaitVisible(`#dispatch-message`))
	if msg := b.text(t, "#dispatch-message"); !strings.Contains(msg, "Accepted the whole plan") {
		t.Errorf("after accepting the plan: %q", msg)
	}
}
