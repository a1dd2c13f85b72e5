package main

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestAppRecordsLate: the job page's step actions take "started at" and
// "finished at" for a person writing down what happened (contract section
// 9), with a refusal beside its field.
func TestAppRecordsLate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		dbURL := db.URL
		w := newWorld(t, dbURL)
		org := w.org("Late Motors", "pro", 1)
		loc := org.Locations[0]
		zone := mustZone(t, loc.Timezone)
		appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		// Arrived 20 s into a minute: the form's times are to the minute.
		arrived := time.Now().Add(-3 * time.Hour).Truncate(time.Minute).Add(20 * time.Second)
		now := workshop.MicrosOf(time.Now())
		res, err := w.st.CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org.ID,
			LocationID: loc.ID, Priority: "normal", Source: "other", ArrivalTime: &workshop.OffsetTime{Time: arrived},
			CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, false)
		if err != nil {
			t.Fatal(err)
		}
		jobID := res.Job.ID
		st := w.step(org.ID, jobID)
		w.catalogItem(org.ID, loc.ID, "OIL", "Oil change", 45)
		srv := startServer(t, dbURL)
		b := newBrowser(t, srv.URL)
		b.login("advisor@example.com", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		local := func(t time.Time) string { return t.In(zone).Format("2006-01-02T15:04") }
		stepPath := "/jobs/" + jobID + "/steps/" + st.ID

		b.get("/jobs/"+jobID).want(t, "the job page", http.StatusOK, "", `name="actualStart" type="datetime-local"`, "Started at")
		b.post(stepPath+"/start", url.Values{"updatedAt": {ver(st.UpdatedAt)}, "actualStart": {local(arrived.Add(-time.Hour))}}).
			want(t, "a start before the arrival", http.StatusUnprocessableEntity, "", `id="actualStart-`+st.ID+`-error"`)
		started := arrived // given as the arrival's minute, which lies before it: taken as the arrival
		b.post(stepPath+"/start", url.Values{"updatedAt": {ver(st.UpdatedAt)}, "actualStart": {local(started)}}).
			want(t, "started at the minute of the arrival", http.StatusSeeOther, "/jobs/"+jobID+"?done=started&step="+st.ID+"#step-"+st.ID)
		st = deskJob(t, w, org.ID, jobID).Steps[0]
		if st.StartedAt == nil || !st.StartedAt.Time().Equal(started) {
			t.Fatalf("startedAt = %v, want %v", st.StartedAt, started)
		}
		b.get("/jobs/"+jobID).want(t, "the step in progress", http.StatusOK, "", `name="actualEnd" type="datetime-local"`, "Finished at")
		finished := started.Add(75 * time.Minute).Truncate(time.Minute)
		b.post(stepPath+"/complete", url.Values{"updatedAt": {ver(st.UpdatedAt)}, "actualEnd": {local(finished)}}).
			want(t, "finished at", http.StatusSeeOther, "/jobs/"+jobID+"?done=completed&step="+st.ID+"#step-"+st.ID)
		st = deskJob(t, w, org.ID, jobID).Steps[0]
		if st.Status != workshop.StepCompleted || st.CompletedAt == nil || !st.CompletedAt.Time().Equal(finished) {
			t.Errorf("completed step = %s at %v, want completed at %v", st.Status, st.CompletedAt, finished)
		}

		// The catalog shows what history says beside the estimate.
		b.get("/locations/"+loc.ID+"/catalog").want(t, "the catalog", http.StatusOK, "", `<td class="num">0:45</td>`, "not enough history yet (0 done in 90 days, 5 needed)")
		b.get("/locations/"+loc.ID+"/catalog/OIL").want(t, "a catalog item", http.StatusOK, "", "<dt>Actually</dt>")
	})
}

// TestAppPlanningDurationsSetting: the settings page chooses which
// durations the plan uses (contract section 9).
func TestAppPlanningDurationsSetting(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		o := w.org("Learning Motors", "pro", 1)
		loc := o.Locations[0]
		appUser(t, w, o.ID, "boss@learning.example", workshop.RoleOwner, testPassword)
		srv := startServer(t, db.URL)
		path := "/locations/" + loc.ID + "/settings"
		current := func() workshop.Settings {
			t.Helper()
			st, err := w.st.Settings(context.Background(), loc.ID)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		b := newBrowser(t, srv.URL)
		b.login("boss@learning.example", testPassword, "").want(t, "owner signs in", http.StatusSeeOther, "/")
		b.get(path).want(t, "the settings", http.StatusOK, "", `<select id="planningDurations" name="planningDurations"`,
			`<option value="estimate" selected>`)
		b.post(path, settingsFormOf(current().UpdatedAt, func(f url.Values) { f.Set("planningDurations", "p99") })).
			want(t, "an unknown choice", http.StatusUnprocessableEntity, "", `id="planningDurations-error"`)
		b.post(path, settingsFormOf(current().UpdatedAt, func(f url.Values) { f.Set("planningDurations", "p80") })).
			want(t, "learned durations", http.StatusSeeOther, "")
		if got := current().PlanningDurations; got != workshop.PlanWithP80 {
			t.Errorf("planningDurations = %q, want p80", got)
		}
		b.get(path).want(t, "the settings again", http.StatusOK, "", `<option value="p80" selected>`)
	})
}
