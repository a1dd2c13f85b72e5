package main

// Learning from the shop floor (contract section 9) through the API on
// both databases: actual times written down late, the durations learned
// from them, and the plan that uses them.

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
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
