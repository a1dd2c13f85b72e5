package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Every text a user or an API client can set (a job's number, plate,
// make, model and external key, a step's label, a technician's and a
// bay's name, a location's name) is shown escaped on every page that
// shows it: the board, its live stream and wall display, the job list,
// the job page and a technician's work. None of them runs as markup.
func TestAppEscapesWhatClientsWrite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("Escape Motors", "pro", 1)
		loc := org.Locations[0]
		bad := func(field string) string { return fmt.Sprintf(`<img src=x onerror=alert("%s")>`, field) }
		user := appUser(t, w, org.ID, "tech@example.com", workshop.RoleTechnician, testPassword)
		appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: bad("technician"), WIPLimit: 2, UserID: user.ID})
		if err != nil {
			t.Fatal(err)
		}
		bay, err := w.op.CreateBay(ctx, loc.ID, bad("bay"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, db.URL)

		// Through the API, as an integration would write them.
		body, _ := json.Marshal(map[string]any{"locationId": loc.ID, "jobNumber": bad("jobNumber"), "vehiclePlate": bad("plate"),
			"vehicleMake": bad("make"), "vehicleModel": bad("model"), "externalKey": bad("externalKey"),
			"promiseTime": time.Now().Add(-time.Hour).Format(time.RFC3339)})
		r := apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: org.Key.Key, Body: string(body)})
		if r.Status != http.StatusCreated {
			t.Fatalf("create the job: %d %s", r.Status, r.Body)
		}
		var job struct{ ID string }
		if err := json.Unmarshal(r.Body, &job); err != nil {
			t.Fatal(err)
		}
		body, _ = json.Marshal(map[string]any{"label": bad("label"), "estimatedDuration": 30})
		r = apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs/" + job.ID + "/steps", Key: org.Key.Key, Body: string(body)})
		if r.Status != http.StatusCreated {
			t.Fatalf("create the step: %d %s", r.Status, r.Body)
		}
		var step struct {
			ID        string
			UpdatedAt time.Time
		}
		if err := json.Unmarshal(r.Body, &step); err != nil {
			t.Fatal(err)
		}
		v := store.Visibility{OrgID: org.ID}
		techs, bayID := []string{tech.ID}, &bay.ID
		st, err := w.st.PatchStep(ctx, v, job.ID, step.ID, store.StepPatch{UpdatedAt: workshop.MicrosOf(step.UpdatedAt), TechIDs: &techs,
			BayID: &bayID}, workshop.MicrosOf(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		start := workshop.StepInProgress
		if _, err := w.st.PatchStep(ctx, v, job.ID, step.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, Status: &start}, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}

		shown := []string{"jobNumber", "technician", "bay", "plate", "make", "model", "label"}
		check := func(where, html string, fields ...string) {
			t.Helper()
			if strings.Contains(html, "<img") {
				t.Errorf("%s: a client's text is markup: %.800s", where, html)
			}
			for _, f := range fields {
				if !strings.Contains(html, `&lt;img src=x onerror=alert(&#34;`+f+`&#34;)&gt;`) {
					t.Errorf("%s: the %s is not shown escaped", where, f)
				}
			}
		}
		b := newBrowser(t, srv.URL)
		b.login("advisor@example.com", testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
		board := "/locations/" + loc.ID + "/board"
		check("the board", b.get(board).body, shown...)
		check("the wall display", b.get(board+"?display=wall").body, "plate", "technician", "bay")
		live := b.openLive(board + "/events")
		live.waitBoard("the live board", time.Time{}, 5*time.Second, "onerror")
		live.mu.Lock()
		first := live.boards[0]
		live.mu.Unlock()
		check("the live board", first, shown...)
		check("the job list", b.get("/locations/"+loc.ID+"/jobs").body, "jobNumber", "plate", "make", "model")
		check("the job page", b.get("/jobs/"+job.ID).body, "jobNumber", "plate", "make", "model", "externalKey", "label", "technician", "bay")
		tb := newBrowser(t, srv.URL)
		tb.login("tech@example.com", testPassword, "").want(t, "the technician signs in", http.StatusSeeOther, "/")
		check("my work", tb.get("/my/work").body, "jobNumber", "label", "technician")
	})
}
