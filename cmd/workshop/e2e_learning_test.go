package main

// Learning from the shop floor (contract section 9) through the API on
// both databases: actual times written down late, the durations learned
// from them, and the plan that uses them.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// stepTimes is what the tests read of a step.
type stepTimes struct {
	ID          string
	Status      string
	StartedAt   *time.Time
	CompletedAt *time.Time
	UpdatedAt   string
}

// arrivedJob creates a job that arrived at arrival with a step per code.
func (p *planWorld) arrivedJob(arrival time.Time, codes ...string) (string, []stepTimes) {
	p.t.Helper()
	var j struct{ ID string }
	p.call("POST", "/v1/scheduler/jobs", map[string]any{"locationId": p.loc.ID, "arrivalTime": arrival.Format(time.RFC3339)}, 201).Decode(p.t, &j)
	var steps []stepTimes
	for _, code := range codes {
		var st stepTimes
		p.call("POST", "/v1/scheduler/jobs/"+j.ID+"/steps", map[string]any{"serviceCode": code}, 201).Decode(p.t, &st)
		steps = append(steps, st)
	}
	return j.ID, steps
}

// patchStep sends a step PATCH with the step's current updatedAt.
func (p *planWorld) patchStep(jobID string, st stepTimes, body map[string]any) *apitest.Response {
	p.t.Helper()
	body["updatedAt"] = st.UpdatedAt
	return apitest.Call(p.t, p.api, apitest.Request{Method: "PATCH", Path: "/v1/scheduler/jobs/" + jobID + "/steps/" + st.ID,
		Key: p.o.Key.Key, Body: body})
}

// record moves a step through in_progress to completed at the times given.
func (p *planWorld) record(jobID string, st stepTimes, start, end time.Time) stepTimes {
	p.t.Helper()
	r := p.patchStep(jobID, st, map[string]any{"status": "in_progress", "actualStart": start.Format(time.RFC3339Nano)})
	if r.Status != 200 {
		p.t.Fatalf("start at %v: %d %s", start, r.Status, r.Body)
	}
	r.Decode(p.t, &st)
	r = p.patchStep(jobID, st, map[string]any{"status": "completed", "actualEnd": end.Format(time.RFC3339Nano)})
	if r.Status != 200 {
		p.t.Fatalf("end at %v: %d %s", end, r.Status, r.Body)
	}
	r.Decode(p.t, &st)
	return st
}

func TestRecordingLate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		now := time.Now().Truncate(time.Second)
		arrival := now.Add(-3 * time.Hour)
		jobID, steps := p.arrivedJob(arrival, "OIL")
		st := steps[0]
		stamp := func(t time.Time) string { return t.Format(time.RFC3339) }

		for _, tc := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"start before the arrival", map[string]any{"status": "in_progress", "actualStart": stamp(arrival.Add(-time.Minute))}, "actualStart"},
			{"start in the future", map[string]any{"status": "in_progress", "actualStart": stamp(now.Add(time.Hour))}, "actualStart"},
			{"start on a step staying pending", map[string]any{"actualStart": stamp(now.Add(-time.Hour))}, "actualStart"},
			{"end with a start", map[string]any{"status": "in_progress", "actualEnd": stamp(now)}, "actualEnd"},
		} {
			wantProblem(t, p.patchStep(jobID, st, tc.body), 422, "validation_failed", tc.field)
		}

		started := now.Add(-2 * time.Hour)
		r := p.patchStep(jobID, st, map[string]any{"status": "in_progress", "actualStart": stamp(started)})
		r.Decode(t, &st)
		if r.Status != 200 || st.StartedAt == nil || !st.StartedAt.Equal(started) {
			t.Fatalf("start written down late = %d %+v, want startedAt %v", r.Status, st, started)
		}
		corrected := now.Add(-150 * time.Minute)
		p.patchStep(jobID, st, map[string]any{"actualStart": stamp(corrected)}).Decode(t, &st)
		if st.StartedAt == nil || !st.StartedAt.Equal(corrected) || st.Status != "in_progress" {
			t.Errorf("start corrected in progress = %+v, want startedAt %v", st, corrected)
		}
		wantProblem(t, p.patchStep(jobID, st, map[string]any{"actualEnd": stamp(now)}), 422, "validation_failed", "actualEnd")
		wantProblem(t, p.patchStep(jobID, st, map[string]any{"status": "completed", "actualEnd": stamp(corrected.Add(-time.Minute))}),
			422, "validation_failed", "actualEnd")

		ended := now.Add(-time.Hour)
		p.patchStep(jobID, st, map[string]any{"status": "completed", "actualEnd": stamp(ended)}).Decode(t, &st)
		if st.Status != "completed" || st.CompletedAt == nil || !st.CompletedAt.Equal(ended) {
			t.Fatalf("end written down late = %+v, want completed at %v", st, ended)
		}
		wantProblem(t, p.patchStep(jobID, st, map[string]any{"actualStart": stamp(ended.Add(time.Minute))}), 422, "validation_failed", "actualStart")
		wantProblem(t, p.patchStep(jobID, st, map[string]any{"actualEnd": stamp(now.Add(time.Hour))}), 422, "validation_failed", "actualEnd")
		fixedStart, fixedEnd := now.Add(-140*time.Minute), now.Add(-50*time.Minute)
		p.patchStep(jobID, st, map[string]any{"actualStart": stamp(fixedStart), "actualEnd": stamp(fixedEnd)}).Decode(t, &st)
		if !st.StartedAt.Equal(fixedStart) || !st.CompletedAt.Equal(fixedEnd) {
			t.Errorf("completed step corrected = %+v, want %v-%v", st, fixedStart, fixedEnd)
		}

		// The job detail shows the same actual times.
		var d struct {
			Steps []struct {
				ID                     string
				ActualStart, ActualEnd *time.Time
			}
		}
		p.call("GET", "/v1/scheduler/jobs/"+jobID+"/detail", nil, 200).Decode(t, &d)
		if len(d.Steps) != 1 || d.Steps[0].ActualStart == nil || !d.Steps[0].ActualStart.Equal(fixedStart) ||
			d.Steps[0].ActualEnd == nil || !d.Steps[0].ActualEnd.Equal(fixedEnd) {
			t.Errorf("detail steps = %+v, want actual %v-%v", d.Steps, fixedStart, fixedEnd)
		}
	})
}

// TestLearnedDurations: catalog items' durationStats after a known
// history, and the plan's and the availability quote's step lengths as
// planningDurations switches, on both databases.
func TestLearnedDurations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		ctx := context.Background()
		settings, err := p.w.st.Settings(ctx, p.loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		cal := workshop.NewCalendar(mustZone(t, p.loc.Timezone), settings)
		now := time.Now().Truncate(time.Minute)
		worked := func(codes string, durations ...int) []int {
			var got []int
			for i, d := range durations {
				start := now.Add(-7*time.Hour + time.Duration(i)*10*time.Minute)
				jobID, steps := p.arrivedJob(now.Add(-8*time.Hour), codes)
				p.record(jobID, steps[0], start, start.Add(time.Duration(d)*time.Minute))
				got = append(got, workshop.StepWorkMinutes(cal, start, start.Add(time.Duration(d)*time.Minute)))
			}
			return got
		}
		oil := workshop.DurationStatsOf(worked("OIL", 95, 50, 80, 60, 75))
		worked("BRAKES", 30, 40, 50, 60)

		var catalog struct {
			Data []struct {
				ServiceCode       string
				EstimatedDuration int
				DurationStats     struct {
					Samples  int
					P50, P80 *int
				}
			}
		}
		r := p.call("GET", "/v1/scheduler/catalog?locationId="+p.loc.ID, nil, 200)
		r.Decode(t, &catalog)
		stats := map[string]string{}
		for _, it := range catalog.Data {
			stats[it.ServiceCode] = fmt.Sprintf("%d %v %v", it.DurationStats.Samples, ptrValue(it.DurationStats.P50), ptrValue(it.DurationStats.P80))
		}
		want := map[string]string{"OIL": fmt.Sprintf("5 %d %d", *oil.P50, *oil.P80), "BRAKES": "4 <nil> <nil>",
			"BATTERY": "0 <nil> <nil>", "GEARBOX": "0 <nil> <nil>"}
		if !reflect.DeepEqual(stats, want) {
			t.Errorf("catalog durationStats = %v, want %v", stats, want)
		}
		if !strings.Contains(string(r.Body), `"durationStats":{"p50":null,"p80":null,"samples":0}`) &&
			!strings.Contains(string(r.Body), `"durationStats":{"samples":0,"p50":null,"p80":null}`) {
			t.Errorf("an item without history: want its nulls written out, body %s", r.Body)
		}

		// The open work: an OIL step as the catalog made it, one with a
		// person's own estimate, and a BRAKES step (too few samples).
		_, steps := p.job(now.Add(48*time.Hour), "normal", "OIL", "BRAKES")
		var own struct{ ID string }
		p.call("POST", "/v1/scheduler/jobs/"+p.jobOf(steps[0])+"/steps", map[string]any{"serviceCode": "OIL", "estimatedDuration": 45}, 201).Decode(t, &own)
		lengths := func() map[string]int {
			out := map[string]int{}
			for _, s := range p.plan().Steps {
				out[s.StepID] = int(cal.WorkBetween(s.PlannedStart, s.PlannedEnd) / time.Minute)
			}
			return out
		}
		type quote struct {
			EarliestCompletion time.Time
			Confidence         float64
			MarginMinutes      int
			Steps              []struct{ PlannedStart, PlannedEnd time.Time }
		}
		quoted := func() (int, quote) {
			var q quote
			p.call("GET", "/v1/scheduler/availability?locationId="+p.loc.ID+"&serviceCodes=OIL", nil, 200).Decode(t, &q)
			if len(q.Steps) != 1 {
				t.Fatalf("quote steps = %+v, want one", q.Steps)
			}
			if want := cal.AddWork(q.Steps[0].PlannedEnd, time.Duration(q.MarginMinutes)*time.Minute); !q.EarliestCompletion.Equal(want) {
				t.Errorf("earliestCompletion %v, want the step's end %v plus %d minutes of working time, %v", q.EarliestCompletion,
					q.Steps[0].PlannedEnd, q.MarginMinutes, want)
			}
			return int(cal.WorkBetween(q.Steps[0].PlannedStart, q.Steps[0].PlannedEnd) / time.Minute), q
		}
		// With learned durations the quote places the work at its median
		// and adds the margin of the spread (p80 - p50) / 0.8416 of the
		// new OIL step and of the OIL steps planned before it on its
		// technician (the BRAKES step's service has too few samples).
		spread := float64(*oil.P80-*oil.P50) / 0.8416
		for _, tc := range []struct {
			mode          string
			oil, brakes   int
			own, quoteOil int
			margin        bool
		}{
			{"estimate", 60, 60, 45, 60, false},
			{"p80", *oil.P80, 60, 45, *oil.P50, true},
			{"p50", *oil.P50, 60, 45, *oil.P50, true},
		} {
			if _, err := p.w.op.SetSettings(ctx, p.loc.ID, "", "", nil, operator.PlanningDurations(tc.mode)); err != nil {
				t.Fatalf("set planningDurations %s: %v", tc.mode, err)
			}
			var ws struct {
				Data []struct{ PlanningDurations string }
			}
			p.call("GET", "/v1/scheduler/workshop", nil, 200).Decode(t, &ws)
			if len(ws.Data) != 1 || ws.Data[0].PlanningDurations != tc.mode {
				t.Errorf("GET /v1/scheduler/workshop = %+v, want planningDurations %s", ws.Data, tc.mode)
			}
			got := lengths()
			if got[steps[0]] != tc.oil || got[steps[1]] != tc.brakes || got[own.ID] != tc.own {
				t.Errorf("%s: planned minutes OIL %d, BRAKES %d, own estimate %d; want %d, %d, %d", tc.mode,
					got[steps[0]], got[steps[1]], got[own.ID], tc.oil, tc.brakes, tc.own)
			}
			minutes, q := quoted()
			if minutes != tc.quoteOil || q.Confidence != 0.9 {
				t.Errorf("%s: quoted OIL minutes %d at confidence %v, want %d at 0.9", tc.mode, minutes, q.Confidence, tc.quoteOil)
			}
			// One to three OIL steps' spreads (the new one, and the
			// planned ones ahead of it on Ana), z = 1.2816 at 0.9.
			low, high := int(math.Ceil(1.2816*spread)), int(math.Ceil(1.2816*spread*math.Sqrt(3)))
			if tc.margin != (q.MarginMinutes > 0) || tc.margin && (q.MarginMinutes < low || q.MarginMinutes > high) {
				t.Errorf("%s: margin %d minutes, want %v (between %d and %d with learned durations)", tc.mode, q.MarginMinutes, tc.margin, low, high)
			}
		}
		// The confidence means what it says: a higher one, a longer margin;
		// a coin toss, none.
		margins := map[float64]int{}
		for _, c := range []float64{0.5, 0.9, 0.99} {
			if _, err := p.w.op.SetSettings(ctx, p.loc.ID, "", "", nil, operator.PromiseConfidence(c)); err != nil {
				t.Fatalf("promiseConfidence %v: %v", c, err)
			}
			_, q := quoted()
			margins[c] = q.MarginMinutes
		}
		if margins[0.5] != 0 || margins[0.9] <= 0 || margins[0.99] <= margins[0.9] {
			t.Errorf("margins by confidence %v, want 0 at 0.5 and growing with it", margins)
		}
		for _, bad := range []float64{0.3, 1, 1.5} {
			_, err := p.w.op.SetSettings(ctx, p.loc.ID, "", "", nil, operator.PromiseConfidence(bad))
			if we := (*workshop.Error)(nil); !errors.As(err, &we) || we.Field != "promiseConfidence" {
				t.Errorf("promiseConfidence %v: %v, want refused on promiseConfidence", bad, err)
			}
		}
		if _, err := p.w.op.SetSettings(ctx, p.loc.ID, "", "", nil, operator.PlanningDurations("p99")); workshop.ErrorCode(err) != workshop.CodeValidationFailed {
			t.Errorf("planningDurations p99 = %v, want validation_failed", err)
		}
	})
}

// jobOf is the job of a step, read through the API.
func (p *planWorld) jobOf(stepID string) string {
	p.t.Helper()
	for _, s := range p.plan().Steps {
		if s.StepID == stepID {
			return s.JobID
		}
	}
	p.t.Fatalf("step %s is not in the plan", stepID)
	return ""
}
