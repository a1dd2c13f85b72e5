package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestSchedulingAStepEndToEnd (contract section 8, "Scheduling a step at
// a time"): a step moved by one PATCH of techIds, bayId and notBefore
// starts exactly then in the plan, ahead of work created before it; the
// step keeps the offset it was sent with; notBefore is refused on a step
// that is not pending; null gives the time back to the planner.
func TestSchedulingAStepEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		firstJob, first := p.job(time.Now().Add(8*time.Hour), "normal", "BRAKES")
		movedJob, moved := p.job(time.Now().Add(8*time.Hour), "normal", "")
		stepPath := "/v1/scheduler/jobs/" + movedJob + "/steps/" + moved[0]
		zone := time.FixedZone("", 5*3600+30*60)
		at := time.Now().Add(3 * time.Hour).Truncate(time.Minute).In(zone)
		if at.UTC().Hour() == 23 && at.UTC().Minute() >= 58 { // the location closes at 23:59 UTC
			at = at.Add(5 * time.Minute)
		}
		var st struct {
			ID        string
			UpdatedAt string
			NotBefore *string
		}
		var job struct {
			Steps []struct {
				ID        string
				UpdatedAt string
				NotBefore *string
			}
		}
		p.call("GET", "/v1/scheduler/jobs/"+movedJob, nil, 200).Decode(t, &job)
		st = job.Steps[0]
		if st.NotBefore != nil {
			t.Errorf("a new step's notBefore = %v, want null", *st.NotBefore)
		}
		p.call("PATCH", stepPath, map[string]any{"updatedAt": st.UpdatedAt,
			"techIds": []string{p.techs["Ben"]}, "bayId": p.bays["Lift 2"], "notBefore": at.Format(time.RFC3339)}, 200).Decode(t, &st)
		if st.NotBefore == nil || *st.NotBefore != at.Format(time.RFC3339) {
			t.Errorf("notBefore answered %v, want %s as sent", st.NotBefore, at.Format(time.RFC3339))
		}
		var plan struct {
			Steps []struct {
				StepID       string    `json:"stepId"`
				TechIDs      []string  `json:"techIds"`
				PlannedStart time.Time `json:"plannedStart"`
				PlannedEnd   time.Time `json:"plannedEnd"`
				Pinned       bool      `json:"pinned"`
				NotBefore    *string   `json:"notBefore"`
			} `json:"steps"`
		}
		p.call("GET", "/v1/scheduler/plan?locationId="+p.loc.ID, nil, 200).Decode(t, &plan)
		byID := map[string]int{}
		for i, s := range plan.Steps {
			byID[s.StepID] = i
		}
		i, ok := byID[moved[0]]
		if !ok || !plan.Steps[i].PlannedStart.Equal(at) || !plan.Steps[i].Pinned || plan.Steps[i].NotBefore == nil {
			t.Fatalf("the scheduled step in the plan: %+v (placed %v), want pinned, starting at %v with its notBefore", plan.Steps, ok, at)
		}
		if nb, _ := time.Parse(time.RFC3339, *plan.Steps[i].NotBefore); !nb.Equal(at) {
			t.Errorf("plan notBefore %s, want %v", *plan.Steps[i].NotBefore, at)
		}
		if _, ok := byID[first[0]]; !ok {
			t.Errorf("the other step %s is not placed", first[0])
		}

		// null gives the time back; a step in progress refuses notBefore.
		p.call("PATCH", stepPath, map[string]any{"updatedAt": st.UpdatedAt,
			"notBefore": nil}, 200).Decode(t, &st)
		if st.NotBefore != nil {
			t.Errorf("after null, notBefore = %v", *st.NotBefore)
		}
		p.call("PATCH", stepPath, map[string]any{"updatedAt": st.UpdatedAt,
			"status": "in_progress"}, 200).Decode(t, &st)
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "PATCH", Key: p.o.Key.Key,
			Path: stepPath,
			Body: map[string]any{"updatedAt": st.UpdatedAt, "notBefore": at.Format(time.RFC3339)}}), 422, "validation_failed", "notBefore")

		// A step created scheduled, with serviceCode null (a free-text step).
		var created struct {
			NotBefore   *string
			ServiceCode *string
		}
		p.call("POST", "/v1/scheduler/jobs/"+firstJob+"/steps", map[string]any{"label": "Wash", "estimatedDuration": 15,
			"serviceCode": nil, "notBefore": at.Format(time.RFC3339)}, 201).Decode(t, &created)
		if created.NotBefore == nil || created.ServiceCode != nil {
			t.Errorf("created %+v, want its notBefore and serviceCode null", created)
		}

		// A free-text step after a step nobody can do waits for it.
		gearJob, gear := p.job(time.Now().Add(8*time.Hour), "normal", "GEARBOX", "")
		var unplaced struct {
			Unplaced []struct {
				StepID    string  `json:"stepId"`
				Reason    string  `json:"reason"`
				BlockedBy *string `json:"blockedBy"`
			} `json:"unplaced"`
		}
		p.call("GET", "/v1/scheduler/plan?locationId="+p.loc.ID, nil, 200).Decode(t, &unplaced)
		reasons := map[string]string{}
		for _, u := range unplaced.Unplaced {
			reasons[u.StepID] = u.Reason
			if (u.BlockedBy != nil) != (u.Reason == "after_unplaced_step") || u.BlockedBy != nil && *u.BlockedBy != gear[0] {
				t.Errorf("unplaced %s: %s blocked by %v, want blockedBy %s with after_unplaced_step only", u.StepID, u.Reason, u.BlockedBy, gear[0])
			}
		}
		if reasons[gear[0]] != "no_qualified_technician" || reasons[gear[1]] != "after_unplaced_step" {
			t.Errorf("unplaced reasons %v, want GEARBOX no_qualified_technician, the wash after_unplaced_step", reasons)
		}
		var detail struct {
			Promise struct {
				ProjectedCompletion *time.Time
				AtRisk              bool
			}
		}
		p.call("GET", "/v1/scheduler/jobs/"+gearJob+"/detail", nil, 200).Decode(t, &detail)
		if detail.Promise.ProjectedCompletion != nil || !detail.Promise.AtRisk {
			t.Errorf("detail of the unplaceable job: %+v, want projectedCompletion null and at risk", detail.Promise)
		}

		// The job page says what the waiting step waits for, and links it.
		appUser(t, p.w, p.o.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		b := newBrowser(t, p.api)
		b.login("advisor@example.com", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		b.get("/jobs/"+gearJob).want(t, "the job page of the unplaceable job", http.StatusOK, "",
			`waits for <a href="#step-`+gear[0]+`">Service GEARBOX</a>`, "a step cannot be placed in the plan")
	})
}
