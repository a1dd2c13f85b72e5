package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// anID is an id of this service in a page or a problem: what a refusal
// must never show staff.
var anID = regexp.MustCompile(`\b(tec|bay|job|stp|loc|usr)_[0-9a-z]{10,}`)

// Refusals in staff words (issue 43, items 2 and 3): starting a step over
// a technician's WIP limit and in a bay another job's vehicle holds is
// refused on the job page naming the technician, the bay and the job by
// number, never an id, and the "Assign by hand" form beside the refusal
// still shows the step's technician and bay; the API's problem detail is
// the same words. A second clock-in names the technician too.
func TestAppRefusalsInStaffWords(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		m := newMatrixWorld(t, db.URL)
		srv := startServer(t, db.URL)
		b := newBrowser(t, srv.URL)
		b.login(m.users[workshop.RoleAdvisor].Email, testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		v := store.Visibility{OrgID: m.org.ID}
		aylin, err := m.w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: m.loc.ID, Name: "Aylin Demir", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		bay2, err := m.w.op.CreateBay(ctx, m.loc.ID, "Bay 2", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Aylin works on the first job in Bay 2.
		first := m.w.job(m.org.ID, m.loc.ID)
		st := m.w.step(m.org.ID, first.ID)
		if _, err := m.w.st.PatchStep(ctx, v, first.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{aylin.ID},
			BayID: refTo(&bay2.ID), Status: refTo(workshop.StepInProgress)}, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}

		// The second job's step is assigned to Aylin in Bay 2: starting it
		// is refused twice over, the WIP limit first.
		second := m.w.job(m.org.ID, m.loc.ID)
		next := m.w.step(m.org.ID, second.ID)
		path := "/jobs/" + second.ID + "/steps/" + next.ID
		b.post(path+"/assign", url.Values{"techIds": {aylin.ID}, "bayId": {bay2.ID}, "updatedAt": {ver(next.UpdatedAt)}}).
			want(t, "assign Aylin in Bay 2", http.StatusSeeOther, "")
		next = deskJob(t, m.w, m.org.ID, second.ID).Steps[0]
		keptAssignment := func(p page, step string) {
			t.Helper()
			p.want(t, step+": the assign form keeps the assignment", p.status, "",
				`value="`+aylin.ID+`" checked> Aylin Demir`, `<option value="`+bay2.ID+`" selected>Bay 2</option>`)
		}
		p := b.post(path+"/start", url.Values{"updatedAt": {ver(next.UpdatedAt)}})
		p.want(t, "start over Aylin's limit", http.StatusUnprocessableEntity, "",
			`id="techs-`+next.ID+`-error">Aylin Demir already has 1 step in progress; their limit is 1.</span>`)
		keptAssignment(p, "start over Aylin's limit")
		if ids := anID.FindAllString(refusalText(p.body), -1); len(ids) > 0 {
			t.Errorf("the refusal names ids %v", ids)
		}

		// Aylin's limit raised: the bay is the refusal now.
		aylinNow, err := m.w.st.Technician(ctx, v, aylin.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.w.st.EditTechnician(ctx, v, aylin.ID, store.TechnicianEdit{UpdatedAt: aylinNow.UpdatedAt, Name: aylin.Name,
			Skills: []string{}, WIPLimit: 2}, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}
		p = b.post(path+"/start", url.Values{"updatedAt": {ver(next.UpdatedAt)}})
		wantBay := "Bay 2 holds another job&#39;s vehicle: " + first.JobNumber + " has a step in progress there."
		p.want(t, "start in the occupied bay", http.StatusUnprocessableEntity, "", `id="bay-`+next.ID+`-error">`+wantBay+`</span>`)
		keptAssignment(p, "start in the occupied bay")

		// The API says the same.
		res := apitest.Call(t, srv.URL, apitest.Request{Method: "PATCH", Key: m.org.Key.Key,
			Path: "/v1/scheduler/jobs/" + second.ID + "/steps/" + next.ID,
			Body: map[string]any{"updatedAt": next.UpdatedAt.String(), "status": "in_progress"}})
		problem := wantProblem(t, res, http.StatusUnprocessableEntity, "validation_failed", "bayId")
		if want := "Bay 2 holds another job's vehicle: " + first.JobNumber + " has a step in progress there."; problem.Detail != want {
			t.Errorf("the API's detail = %q, want %q", problem.Detail, want)
		}

		// A second clock-in, on the time clock.
		clock := "/locations/" + m.loc.ID + "/clock"
		if _, err := m.w.st.ClockIn(ctx, v, aylin.ID, time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		b.post(clock+"/in", url.Values{"techId": {aylin.ID}}).want(t, "clock Aylin in twice", http.StatusConflict, "",
			"Aylin Demir is already clocked in.")
	})
}

// refusalText is the text of a page's error messages.
func refusalText(body string) string {
	var out string
	for _, m := range regexp.MustCompile(`class="error"[^>]*>([^<]*)<`).FindAllStringSubmatch(body, -1) {
		out += m[1] + "\n"
	}
	return out
}
