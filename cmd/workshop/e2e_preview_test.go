package main

import (
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// previewOut is what the tests read of a preview.
type previewOut struct {
	Plan    planOut `json:"plan"`
	Effects struct {
		Jobs []struct {
			JobID                       string `json:"jobId"`
			AtRisk, WasAtRisk           bool
			LateMinutes, WasLateMinutes int
		} `json:"jobs"`
		Moves int `json:"moves"`
	} `json:"effects"`
}

// TestPlanPreviewEndToEnd: POST /v1/scheduler/plan/preview answers the
// plan after the changes and their effects, writes nothing (the step, the
// plan and the plan a reader sees stay as they were), refuses what the
// step PATCH refuses with the change's place in the field, ignores an
// Idempotency-Key and works during a day close, on both databases.
func TestPlanPreviewEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		soon := time.Now().Add(90 * time.Minute)
		job, steps := p.job(soon, "high", "BRAKES")
		p.job(time.Now().Add(72*time.Hour), "normal", "OIL", "")
		before := p.plan() // the anchor
		i := slices.IndexFunc(before.Steps, func(s planStepOut) bool { return s.StepID == steps[0] })
		if i < 0 {
			t.Fatalf("BRAKES step not planned: %+v", before)
		}
		readStep := func() string {
			var j struct {
				Steps []struct{ ID, UpdatedAt string }
			}
			p.call("GET", "/v1/scheduler/jobs/"+job, nil, 200).Decode(t, &j)
			return j.Steps[0].UpdatedAt
		}
		stepBefore := readStep()

		// Ben can do brakes; a day later makes the high-priority job late.
		at := time.Now().Add(26 * time.Hour).Truncate(time.Minute)
		preview := func(body map[string]any, key string) *apitest.Response {
			h := http.Header{}
			if key != "" {
				h.Set("Idempotency-Key", key)
			}
			return apitest.Call(t, p.api, apitest.Request{Method: "POST", Path: "/v1/scheduler/plan/preview", Key: p.o.Key.Key, Body: body, Header: h})
		}
		move := map[string]any{"locationId": p.loc.ID, "changes": []map[string]any{{"stepId": steps[0], "techIds": []string{p.techs["Ben"]},
			"bayId": p.bays["Lift 2"], "notBefore": at.Format(time.RFC3339)}}}
		r := preview(move, "preview-key")
		if r.Status != 200 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		var pv previewOut
		r.Decode(t, &pv)
		k := slices.IndexFunc(pv.Plan.Steps, func(s planStepOut) bool { return s.StepID == steps[0] })
		if pv.Plan.Date != "" || k < 0 || !pv.Plan.Steps[k].PlannedStart.Equal(at) || !slices.Equal(pv.Plan.Steps[k].TechIDs, []string{p.techs["Ben"]}) {
			t.Errorf("previewed plan: date %q, step %+v; want date null and BRAKES on Ben at %v", pv.Plan.Date, pv.Plan.Steps, at)
		}
		if len(pv.Effects.Jobs) != 1 || pv.Effects.Jobs[0].JobID != job || !pv.Effects.Jobs[0].AtRisk || pv.Effects.Jobs[0].WasAtRisk ||
			pv.Effects.Jobs[0].LateMinutes <= 0 {
			t.Errorf("effects %+v, want %s turning late", pv.Effects, job)
		}
		// Nothing was written: the step, and the plan a reader gets.
		if got := readStep(); got != stepBefore {
			t.Errorf("the step's updatedAt moved from %s to %s", stepBefore, got)
		}
		if after := p.plan(); !reflect.DeepEqual(after.Steps, before.Steps) || !reflect.DeepEqual(after.Jobs, before.Jobs) {
			t.Errorf("the plan changed after a preview:\n%+v\n%+v", before, after)
		}
		// The same key with another body is no reuse: the key is ignored.
		if r := preview(map[string]any{"locationId": p.loc.ID, "changes": []map[string]any{}}, "preview-key"); r.Status != 200 ||
			r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("a second preview under the same key: %d %s, want a fresh 200", r.Status, r.Body)
		}

		// Refusals name the change.
		var bay struct{ UpdatedAt string }
		p.call("GET", "/v1/scheduler/bays/"+p.bays["Lift 1"], nil, 200).Decode(t, &bay)
		p.call("PATCH", "/v1/scheduler/bays/"+p.bays["Lift 1"], map[string]any{"updatedAt": bay.UpdatedAt, "status": "maintenance"}, 200)
		for _, c := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"an unknown step", map[string]any{"changes": []map[string]any{{"stepId": "stp_nope"}}}, "changes[0].stepId"},
			{"a bay in maintenance", map[string]any{"changes": []map[string]any{{"stepId": steps[0]}, {"stepId": steps[0], "bayId": p.bays["Lift 1"]}}},
				"changes[1].bayId"},
			{"a technician of no location", map[string]any{"changes": []map[string]any{{"stepId": steps[0], "techIds": []string{"tec_nope"}}}}, "changes[0].techIds"},
			{"an unknown technician's status", map[string]any{"changes": []map[string]any{},
				"technicians": []map[string]any{{"techId": p.techs["Ana"], "status": "unavailable"}, {"techId": "tec_nope", "status": "unavailable"}}},
				"technicians[1].techId"},
		} {
			c.body["locationId"] = p.loc.ID
			wantProblem(t, preview(c.body, ""), 422, "validation_failed", c.field)
		}

		// A technician going home, previewed during a day close.
		if _, err := p.w.op.StartDayClose(t.Context(), p.loc.ID); err != nil {
			t.Fatal(err)
		}
		r = preview(map[string]any{"locationId": p.loc.ID, "changes": []map[string]any{},
			"technicians": []map[string]any{{"techId": p.techs["Ana"], "status": "unavailable"}, {"techId": p.techs["Ben"], "status": "unavailable"}}}, "")
		if r.Status != 200 {
			t.Fatalf("preview during a day close: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &pv)
		if !slices.ContainsFunc(pv.Plan.Unplaced, func(u unplacedOut) bool { return u.StepID == steps[0] }) {
			t.Errorf("with nobody for brakes, BRAKES is still placed: %+v", pv.Plan)
		}
	})
}
