package main

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestOnePlanEveryDate: the plan read for today, for tomorrow and without
// a date is one plan (contract section 8): the same unplaced steps, jobs
// and totals, each day listing the steps whose time overlaps it; a date
// outside today..today+13 is refused on date; a step assigned by hand to
// a technician who then becomes unavailable is unplaced, its job at risk.
func TestOnePlanEveryDate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		zone, err := workshop.LoadZone(p.loc.Timezone)
		if err != nil {
			t.Fatal(err)
		}
		far := time.Now().Add(5 * 24 * time.Hour)
		long, longSteps := p.job(far, "normal", "OIL")
		var j struct {
			Steps []struct{ ID, UpdatedAt string }
		}
		p.call("GET", "/v1/scheduler/jobs/"+long, nil, 200).Decode(t, &j)
		// 30 hours of work: the step spans today and tomorrow on any clock.
		p.call("PATCH", "/v1/scheduler/jobs/"+long+"/steps/"+longSteps[0], map[string]any{"updatedAt": j.Steps[0].UpdatedAt, "estimatedDuration": 1800}, 200)
		p.job(far, "high", "BRAKES", "")

		read := func(query string) planOut {
			var out planOut
			p.call("GET", "/v1/scheduler/plan?locationId="+p.loc.ID+query, nil, 200).Decode(t, &out)
			return out
		}
		// One plan is one minute's: the three reads are made again when a
		// minute turned between them.
		var whole planOut
		var days []planOut
		var today time.Time
		for range 3 {
			minute := time.Now().Truncate(time.Minute)
			whole = read("")
			today = time.Now().In(zone)
			days = []planOut{read("&date=" + today.Format(time.DateOnly)), read("&date=" + today.AddDate(0, 0, 1).Format(time.DateOnly))}
			if time.Now().Truncate(time.Minute).Equal(minute) {
				break
			}
		}
		if whole.Date != "" {
			t.Errorf("without date: date %q, want null", whole.Date)
		}
		seen := map[string]bool{}
		for i, d := range days {
			if !reflect.DeepEqual(d.Unplaced, whole.Unplaced) || !reflect.DeepEqual(d.Jobs, whole.Jobs) || d.Totals != whole.Totals {
				t.Errorf("day %d: unplaced, jobs or totals differ from the whole plan's:\n%+v\n%+v", i, d, whole)
			}
			for _, s := range d.Steps {
				seen[s.StepID] = true
				if !slices.ContainsFunc(whole.Steps, func(w planStepOut) bool { return reflect.DeepEqual(w, s) }) {
					t.Errorf("day %d lists %+v, which the whole plan does not", i, s)
				}
			}
		}
		for _, d := range days {
			if !slices.ContainsFunc(d.Steps, func(s planStepOut) bool { return s.StepID == longSteps[0] }) {
				t.Errorf("the 30-hour step is not listed on both days: %+v", days)
			}
		}
		if len(seen) > len(whole.Steps) {
			t.Errorf("the days list %d steps, the plan %d", len(seen), len(whole.Steps))
		}

		for _, date := range []string{today.AddDate(0, 0, -1).Format(time.DateOnly), today.AddDate(0, 0, 14).Format(time.DateOnly), "9999-12-31"} {
			wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key,
				Path: "/v1/scheduler/plan?locationId=" + p.loc.ID + "&date=" + date}), 422, "validation_failed", "date")
		}
		last := today.AddDate(0, 0, 13).Format(time.DateOnly)
		if d := read("&date=" + last); d.Date != last {
			t.Errorf("the 14th day: date %q, want %s", d.Date, last)
		}

		// Assigned by hand, then the technician goes home: unplaced, at risk.
		byHand, handSteps := p.job(far, "normal", "BRAKES")
		p.call("GET", "/v1/scheduler/jobs/"+byHand, nil, 200).Decode(t, &j)
		p.call("PATCH", "/v1/scheduler/jobs/"+byHand+"/steps/"+handSteps[0], map[string]any{"updatedAt": j.Steps[0].UpdatedAt,
			"techIds": []string{p.techs["Ben"]}}, 200)
		var tec struct{ UpdatedAt string }
		p.call("GET", "/v1/scheduler/technicians/"+p.techs["Ben"], nil, 200).Decode(t, &tec)
		p.call("PATCH", "/v1/scheduler/technicians/"+p.techs["Ben"], map[string]any{"updatedAt": tec.UpdatedAt, "status": "unavailable"}, 200)
		after := read("")
		i := slices.IndexFunc(after.Unplaced, func(u unplacedOut) bool { return u.StepID == handSteps[0] })
		if i < 0 || after.Unplaced[i].Reason != "assigned_unavailable" {
			t.Errorf("unplaced %+v, want %s assigned_unavailable", after.Unplaced, handSteps[0])
		}
		for _, pj := range after.Jobs {
			if pj.JobID == byHand && (!pj.AtRisk || pj.ProjectedCompletion != nil) {
				t.Errorf("job assigned to an unavailable technician: %+v, want at risk without a projection", pj)
			}
		}
	})
}
