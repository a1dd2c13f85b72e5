package main

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// planOut is what the tests read of a plan.
type planOut struct {
	LocationID string        `json:"locationId"`
	Date       string        `json:"date"`
	Steps      []planStepOut `json:"steps"`
	Unplaced   []unplacedOut `json:"unplaced"`
	Jobs       []struct {
		JobID               string     `json:"jobId"`
		ProjectedCompletion *time.Time `json:"projectedCompletion"`
		AtRisk              bool       `json:"atRisk"`
		LateMinutes         int        `json:"lateMinutes"`
	} `json:"jobs"`
	Totals struct {
		LateJobs, WeightedLateMinutes, PlacedSteps, UnplacedSteps int
	} `json:"totals"`
}

type planStepOut struct {
	StepID       string    `json:"stepId"`
	JobID        string    `json:"jobId"`
	TechIDs      []string  `json:"techIds"`
	BayID        *string   `json:"bayId"`
	PlannedStart time.Time `json:"plannedStart"`
	PlannedEnd   time.Time `json:"plannedEnd"`
	Pinned       bool      `json:"pinned"`
}

type unplacedOut struct {
	StepID string `json:"stepId"`
	JobID  string `json:"jobId"`
	Reason string `json:"reason"`
}

// planWorld is a location open around the clock (so the test means the
// same at any hour), with skilled technicians, bays with services and a
// catalog, driven through the API with the owner's org key.
type planWorld struct {
	t       *testing.T
	w       *testWorld
	o       *testOrg
	loc     workshop.Location
	api     string
	techs   map[string]string // name -> id
	bays    map[string]string
	catalog []string
}

func newPlanWorld(t *testing.T, db storetest.Database) *planWorld {
	return newPlanWorldAt(t, db, time.Time{})
}

// newPlanWorldAt is a plan world whose server's clock stands still at now
// (the real clock when now is zero): a plan is made from "now", and a
// minute turning between two reads of one test would move it.
func newPlanWorldAt(t *testing.T, db storetest.Database, now time.Time) *planWorld {
	t.Helper()
	w := newWorld(t, db.URL)
	o := w.org("Plan Motors", workshop.PlanPro, 1)
	p := &planWorld{t: t, w: w, o: o, loc: o.Locations[0], techs: map[string]string{}, bays: map[string]string{}}
	ctx := context.Background()
	buffer := 10
	if _, err := w.op.SetSettings(ctx, p.loc.ID, "mon-sun=00:00-23:59", "none", &buffer); err != nil {
		t.Fatalf("settings: %v", err)
	}
	for name, skills := range map[string][]string{"Ana": {"engine", "brakes"}, "Ben": {"brakes"}, "Cem": {"ev"}} {
		tec, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: p.loc.ID, Name: name, Skills: skills, WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		p.techs[name] = tec.ID
	}
	for name, services := range map[string][]string{"Lift 1": {"OIL", "BRAKES"}, "Lift 2": nil} {
		b, err := w.op.CreateBay(ctx, p.loc.ID, name, nil, services)
		if err != nil {
			t.Fatal(err)
		}
		p.bays[name] = b.ID
	}
	if now.IsZero() {
		p.api = startServer(t, db.URL).URL
	} else {
		p.api = startServerAt(t, db.URL, now).URL
	}
	for _, it := range []struct {
		code   string
		skills []string
	}{{"OIL", []string{"engine"}}, {"BRAKES", []string{"brakes"}}, {"BATTERY", []string{"ev"}}, {"GEARBOX", []string{"transmission"}}} {
		p.call("PUT", "/v1/scheduler/catalog/"+it.code, map[string]any{"locationId": p.loc.ID, "name": "Service " + it.code,
			"estimatedDuration": 60, "requiredSkills": it.skills}, 201)
		p.catalog = append(p.catalog, it.code)
	}
	return p
}

func (p *planWorld) call(method, path string, body any, want int) *apitest.Response {
	p.t.Helper()
	r := apitest.Call(p.t, p.api, apitest.Request{Method: method, Path: path, Key: p.o.Key.Key, Body: body})
	if r.Status != want {
		p.t.Fatalf("%s %s: got %d, want %d; body %s", method, path, r.Status, want, r.Body)
	}
	return r
}

// job creates a job promised at promise, arrived now, with a step per
// service code ("" makes a free-text step).
func (p *planWorld) job(promise time.Time, priority string, codes ...string) (string, []string) {
	p.t.Helper()
	var j struct{ ID string }
	p.call("POST", "/v1/scheduler/jobs", map[string]any{"locationId": p.loc.ID, "promiseTime": promise.Format(time.RFC3339),
		"priority": priority}, 201).Decode(p.t, &j)
	var steps []string
	for _, code := range codes {
		body := map[string]any{"serviceCode": code}
		if code == "" {
			body = map[string]any{"label": "Wash", "estimatedDuration": 20}
		}
		var st struct{ ID string }
		p.call("POST", "/v1/scheduler/jobs/"+j.ID+"/steps", body, 201).Decode(p.t, &st)
		steps = append(steps, st.ID)
	}
	return j.ID, steps
}

func (p *planWorld) plan() planOut {
	p.t.Helper()
	var out planOut
	p.call("GET", "/v1/scheduler/plan?locationId="+p.loc.ID, nil, 200).Decode(p.t, &out)
	return out
}

// TestPlanningEndToEnd: the plan of a real workshop through the API on
// both databases: skills, bay services and unplaced reasons, determinism,
// the job detail's promise, availability, apply and its events.
func TestPlanningEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorldAt(t, db, time.Now().Truncate(time.Second))
		soon := time.Now().Add(3 * time.Hour)
		oilJob, oilSteps := p.job(soon, "high", "OIL", "BRAKES", "")
		evJob, evSteps := p.job(soon.Add(time.Hour), "normal", "BATTERY")
		_, gearSteps := p.job(soon, "low", "GEARBOX")

		// The catalog supplies label and duration; a code the catalog lacks is refused.
		var st struct {
			Label             string
			EstimatedDuration int
			ServiceCode       *string
		}
		p.call("GET", "/v1/scheduler/jobs/"+oilJob, nil, 200)
		r := p.call("POST", "/v1/scheduler/jobs/"+oilJob+"/steps", map[string]any{"serviceCode": "OIL", "label": "Oil, synthetic"}, 201)
		r.Decode(t, &st)
		if st.Label != "Oil, synthetic" || st.EstimatedDuration != 60 || st.ServiceCode == nil || *st.ServiceCode != "OIL" {
			t.Errorf("step from OIL with a label = %+v, want the label sent, the item's 60 minutes, serviceCode OIL", st)
		}
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs/" + oilJob + "/steps",
			Key: p.o.Key.Key, Body: map[string]any{"serviceCode": "NOPE"}}), 422, "validation_failed", "serviceCode")

		plan := p.plan()
		if again := p.plan(); !reflect.DeepEqual(again, plan) {
			t.Errorf("two reads of unchanged data differ:\n%+v\n%+v", plan, again)
		}
		placed := map[string]int{}
		for i, s := range plan.Steps {
			placed[s.StepID] = i
		}
		techOf := func(step string) []string {
			if i, ok := placed[step]; ok {
				return plan.Steps[i].TechIDs
			}
			return nil
		}
		if got := techOf(evSteps[0]); !slices.Equal(got, []string{p.techs["Cem"]}) {
			t.Errorf("BATTERY (needs ev) went to %v, want Cem %s", got, p.techs["Cem"])
		}
		if got := techOf(oilSteps[0]); !slices.Equal(got, []string{p.techs["Ana"]}) {
			t.Errorf("OIL (needs engine) went to %v, want Ana %s", got, p.techs["Ana"])
		}
		if i, ok := placed[oilSteps[1]]; !ok || plan.Steps[i].PlannedStart.Before(plan.Steps[placed[oilSteps[0]]].PlannedEnd) {
			t.Errorf("BRAKES must follow OIL (sequential, same phase): %+v", plan.Steps)
		}
		if len(plan.Unplaced) != 1 || plan.Unplaced[0].StepID != gearSteps[0] || plan.Unplaced[0].Reason != "no_qualified_technician" {
			t.Errorf("unplaced = %+v, want GEARBOX %s for no_qualified_technician", plan.Unplaced, gearSteps[0])
		}
		if plan.Totals.PlacedSteps != len(plan.Steps) || plan.Totals.UnplacedSteps != len(plan.Unplaced) || len(plan.Jobs) != 3 {
			t.Errorf("totals %+v for %d placed, %d unplaced, %d jobs", plan.Totals, len(plan.Steps), len(plan.Unplaced), len(plan.Jobs))
		}

		// The job detail's promise is the plan's.
		for _, pj := range plan.Jobs {
			var d struct {
				Promise struct {
					ProjectedCompletion *time.Time
					AtRisk              bool
				}
				Steps []struct {
					ID                       string
					PlannedStart, PlannedEnd *time.Time
				}
			}
			p.call("GET", "/v1/scheduler/jobs/"+pj.JobID+"/detail", nil, 200).Decode(t, &d)
			if d.Promise.AtRisk != pj.AtRisk || (pj.ProjectedCompletion == nil) != (d.Promise.ProjectedCompletion == nil) ||
				pj.ProjectedCompletion != nil && !d.Promise.ProjectedCompletion.Equal(*pj.ProjectedCompletion) {
				t.Errorf("job %s: detail promise %+v, plan %+v", pj.JobID, d.Promise, pj)
			}
			for _, st := range d.Steps {
				i, ok := placed[st.ID]
				switch {
				case ok && (st.PlannedStart == nil || !st.PlannedStart.Equal(plan.Steps[i].PlannedStart) || !st.PlannedEnd.Equal(plan.Steps[i].PlannedEnd)):
					t.Errorf("step %s: detail planned %v-%v, plan %+v", st.ID, st.PlannedStart, st.PlannedEnd, plan.Steps[i])
				case !ok && (st.PlannedStart != nil || st.PlannedEnd != nil):
					t.Errorf("step %s unplaced: detail planned %v-%v, want null", st.ID, st.PlannedStart, st.PlannedEnd)
				}
			}
		}

		// Availability: planned work stays where it is.
		var quote struct {
			EarliestCompletion *time.Time
			Reason             *string
			Steps              []struct {
				ServiceCode  string
				TechIDs      []string `json:"techIds"`
				PlannedStart time.Time
				PlannedEnd   time.Time
			}
		}
		p.call("GET", "/v1/scheduler/availability?locationId="+p.loc.ID+"&serviceCodes=OIL,BRAKES", nil, 200).Decode(t, &quote)
		if quote.EarliestCompletion == nil || len(quote.Steps) != 2 || quote.Steps[0].ServiceCode != "OIL" ||
			quote.Steps[1].PlannedStart.Before(quote.Steps[0].PlannedEnd) || !quote.EarliestCompletion.Equal(quote.Steps[1].PlannedEnd) {
			t.Errorf("availability OIL,BRAKES = %+v, want OIL then BRAKES, done at the second's end", quote)
		}
		if after := p.plan(); !reflect.DeepEqual(after, plan) {
			t.Errorf("a quote changed the plan")
		}
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key,
			Path: "/v1/scheduler/availability?locationId=" + p.loc.ID + "&serviceCodes=OIL,NOPE"}), 422, "validation_failed", "serviceCodes")

		// Apply one step, then the rest: each assigned step gets step.updated.
		var applied planOut
		p.call("POST", "/v1/scheduler/plan/apply", map[string]any{"locationId": p.loc.ID, "stepIds": []string{evSteps[0]}}, 200).Decode(t, &applied)
		var job struct {
			Steps []struct {
				ID      string
				TechIDs []string `json:"techIds"`
				BayID   *string  `json:"bayId"`
			}
		}
		p.call("GET", "/v1/scheduler/jobs/"+evJob, nil, 200).Decode(t, &job)
		if !slices.Equal(job.Steps[0].TechIDs, []string{p.techs["Cem"]}) {
			t.Errorf("after apply of %s: techIds %v, want [Cem]", evSteps[0], job.Steps[0].TechIDs)
		}
		for _, s := range applied.Steps {
			if s.StepID == evSteps[0] && !s.Pinned {
				t.Errorf("the applied step is not pinned in the plan apply answered: %+v", s)
			}
		}
		p.call("POST", "/v1/scheduler/plan/apply", map[string]any{"locationId": p.loc.ID}, 200).Decode(t, &applied)
		for _, s := range applied.Steps {
			if !s.Pinned {
				t.Errorf("after applying every step, %s is not pinned", s.StepID)
			}
		}
		evs, err := p.w.st.EventsAfter(t.Context(), 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		updated := 0
		for _, ev := range evs {
			if ev.Name == workshop.EventStepUpdated {
				updated++
			}
		}
		if want := len(plan.Steps); updated != want {
			t.Errorf("step.updated events after applying = %d, want %d (one per step the plan placed)", updated, want)
		}

		// A day close blocks apply like any step write.
		if _, err := p.w.op.StartDayClose(t.Context(), p.loc.ID); err != nil {
			t.Fatal(err)
		}
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "POST", Path: "/v1/scheduler/plan/apply", Key: p.o.Key.Key,
			Body: map[string]any{"locationId": p.loc.ID}}), 409, "day_close_in_progress", "")
	})
}

// TestPromiseWatchEndToEnd: a job whose plan turns late is told to a
// webhook as job.at_risk, and back on time as job.on_track, each once.
func TestPromiseWatchEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		p.call("POST", "/v1/platform/webhooks", map[string]any{"url": rcv.URL + "/promises",
			"events": []string{"job.at_risk", "job.on_track"}}, 201)
		ctx := waitCtx(t)

		late, _ := p.job(time.Now().Add(10*time.Minute), "urgent", "OIL", "BRAKES")
		hit, err := rcv.WaitFor(ctx, "/promises", "job.at_risk", late)
		if err != nil {
			t.Fatalf("job.at_risk: %v", err)
		}
		var body struct {
			Data map[string]any `json:"data"`
		}
		decodeHit(t, hit, &body)
		if body.Data["late_minutes"] == nil || body.Data["projected_completion"] == nil || body.Data["job_number"] == nil {
			t.Errorf("job.at_risk data = %v, want the job's row with late_minutes and projected_completion", body.Data)
		}
		var j struct{ UpdatedAt string }
		p.call("GET", "/v1/scheduler/jobs/"+late, nil, 200).Decode(t, &j)
		p.call("PATCH", "/v1/scheduler/jobs/"+late, map[string]any{"updatedAt": j.UpdatedAt,
			"promiseTime": time.Now().Add(72 * time.Hour).Format(time.RFC3339)}, 200)
		if _, err := rcv.WaitFor(ctx, "/promises", "job.on_track", late); err != nil {
			t.Fatalf("job.on_track: %v", err)
		}
		if n := len(rcv.Hits("/promises")); n != 2 {
			t.Errorf("deliveries = %d, want 2 (one at_risk, one on_track)", n)
		}
	})
}

func decodeHit(t *testing.T, h *webhookstest.Hit, v any) {
	t.Helper()
	if err := json.Unmarshal(h.Body, v); err != nil {
		t.Fatalf("delivery body %s: %v", h.Body, err)
	}
}

// TestPromiseWatchTwoProcesses: two servers on one PostgreSQL database
// watch the same location; each job that turns at risk is told once.
func TestPromiseWatchTwoProcesses(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	w := newWorld(t, dbURL)
	o := w.org("Twin Motors", workshop.PlanPro, 1)
	loc := o.Locations[0]
	buffer := 0
	if _, err := w.op.SetSettings(t.Context(), loc.ID, "mon-sun=00:00-23:59", "none", &buffer); err != nil {
		t.Fatal(err)
	}
	if _, err := w.op.CreateTechnician(t.Context(), operator.TechnicianRequest{LocationID: loc.ID, Name: "Solo", WIPLimit: 2}); err != nil {
		t.Fatal(err)
	}
	servers := []string{mpServe(t, dbURL), mpServe(t, dbURL)}
	raw := storetest.RawDB(t, dbURL)
	var late []string
	for i := range 6 {
		api := servers[i%2]
		var j struct{ ID string }
		r := apitest.Call(t, api, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: o.Key.Key,
			Body: map[string]any{"locationId": loc.ID, "promiseTime": time.Now().Add(time.Duration(i) * time.Minute).Format(time.RFC3339)}})
		r.Decode(t, &j)
		apitest.Call(t, api, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs/" + j.ID + "/steps", Key: o.Key.Key,
			Body: map[string]any{"label": "Service", "estimatedDuration": 90}})
		late = append(late, j.ID)
	}
	// Wait until a look has seen the last change, then count.
	caughtUp := func() bool {
		var behind int
		err := raw.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM plan_versions p LEFT JOIN promise_watch w ON w.location_id = p.location_id
			WHERE p.location_id = $1 AND (w.checked_version IS NULL OR w.checked_version <> p.version)`, loc.ID).Scan(&behind)
		return err == nil && behind == 0
	}
	ctx := waitCtx(t)
	for !caughtUp() {
		select {
		case <-ctx.Done():
			t.Fatal("the promise watch did not catch up with the changes within 20 s")
		case <-time.After(50 * time.Millisecond):
		}
	}
	rows, err := raw.QueryContext(t.Context(), `SELECT data FROM events WHERE event = 'job.at_risk'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	told := map[string]int{}
	for rows.Next() {
		var data []byte
		var row struct{ ID string }
		if err := rows.Scan(&data); err != nil || json.Unmarshal(data, &row) != nil {
			t.Fatalf("event row: %v %s", err, data)
		}
		told[row.ID]++
	}
	for _, id := range late {
		if told[id] != 1 {
			t.Errorf("job %s: job.at_risk told %d times, want once (told: %v)", id, told[id], told)
		}
	}
}
