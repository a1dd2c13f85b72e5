package main

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// deskJob reads a job as the test sees it in the database.
func deskJob(t *testing.T, w *testWorld, orgID, id string) workshop.Job {
	t.Helper()
	j, err := w.st.Job(context.Background(), store.Visibility{OrgID: orgID}, id)
	if err != nil {
		t.Fatalf("read job %s: %v", id, err)
	}
	return j
}

func ver(m workshop.Micros) string { return strconv.FormatInt(int64(m), 10) }

// jobEvents are the names of the outbox events of a job or its steps.
func jobEvents(t *testing.T, w *testWorld, jobID string) []string {
	t.Helper()
	evs, err := w.st.EventsAfter(context.Background(), 0, 10000)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	var names []string
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), jobID) {
			names = append(names, ev.Name)
		}
	}
	return names
}

// catalogItem puts an active item in a location's catalog.
func (w *testWorld) catalogItem(orgID, locationID, code, name string, minutes int) {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	if _, err := w.st.PutCatalogItem(context.Background(), workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: orgID,
		LocationID: locationID, ServiceCode: code, Name: name, EstimatedDuration: minutes, RequiredSkills: []string{}, IsActive: true,
		CreatedAt: now, UpdatedAt: now}); err != nil {
		w.t.Fatal(err)
	}
}

// TestAppDesk drives the job desk of the application over HTTP as an
// advisor and a technician would: create, find, assign, start, complete,
// deliver and cancel, a stale edit, a refused value, a refused role and
// a day close.
func TestAppDesk(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("Desk Motors", "pro", 1)
		loc := org.Locations[0]
		appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		appUser(t, w, org.ID, "tech@example.com", workshop.RoleTechnician, testPassword)
		tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		bay, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.catalogItem(org.ID, loc.ID, "OIL", "Oil change", 45)
		other := w.org("Other Motors", "pro", 1)
		stranger := w.job(other.ID, other.Locations[0].ID)
		srv := startServer(t, db.URL)

		b := newBrowser(t, srv.URL)
		b.login("advisor@example.com", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		jobs, newJob := "/locations/"+loc.ID+"/jobs", "/locations/"+loc.ID+"/jobs/new"
		b.get("/locations/"+loc.ID+"/board").want(t, "the board's nav", http.StatusOK, "", `href="`+jobs+`"`, `href="`+newJob+`"`)
		b.get(newJob).want(t, "the new job form", http.StatusOK, "", "Oil change", `name="serviceCodes" value="OIL"`,
			`<label for="vehiclePlate">`, `type="datetime-local"`)

		// The empty form: 422, a message beside the vehicle and the steps,
		// nothing written (the application's rule; the API's create takes
		// a location alone).
		b.post(newJob, url.Values{"kind": {"walk_in"}, "priority": {"normal"}}).want(t, "the empty form", http.StatusUnprocessableEntity, "",
			`id="vehiclePlate-error"`, `id="serviceCodes-error"`)
		if page, err := w.st.Jobs(ctx, store.JobFilter{Visibility: store.Visibility{OrgID: org.ID}}, workshop.PageRequest{Limit: 10}); err != nil || len(page.Data) != 0 {
			t.Fatalf("the empty form wrote %d jobs (%v), want none", len(page.Data), err)
		}
		// Catalog steps chosen: the availability quote, whose button fills
		// the promise (without JavaScript: the form again, nothing written).
		b.get(newJob+"/quote?serviceCodes=OIL").want(t, "the quote", http.StatusOK, "", "Could be ready", `name="usePromise"`)
		b.post(newJob, url.Values{"kind": {"walk_in"}, "priority": {"normal"}, "serviceCodes": {"OIL"}, "usePromise": {"2030-01-02T10:30"}}).
			want(t, "take the quote as the promise", http.StatusOK, "", `value="2030-01-02T10:30"`, `value="OIL" checked`)

		// A value the job cannot take: 422, the message beside its field, the values kept.
		form := url.Values{"kind": {"walk_in"}, "vehiclePlate": {"ab 123 cd"}, "vehicleMake": {"VW"}, "priority": {"high"},
			"promiseTime": {"tomorrow-ish"}, "serviceCodes": {"OIL"}, "customerName": {"Ines Brandt"}, "customerPhone": {"+49 (40) 9876-55"}}
		b.post(newJob, form).want(t, "an invalid promise", http.StatusUnprocessableEntity, "",
			`id="promiseTime-error"`, `aria-describedby="promiseTime-error"`, `value="ab 123 cd"`)
		form.Set("promiseTime", "")
		form.Set("stepLabel", "Wash")
		form.Set("stepDuration", "0")
		b.post(newJob, form).want(t, "a step without an estimate", http.StatusUnprocessableEntity, "", `id="stepDuration-error"`)
		form.Del("stepLabel")
		form.Del("stepDuration")
		if list, err := w.st.SearchJobs(ctx, store.Visibility{OrgID: org.ID}, loc.ID, "AB123CD", 10); err != nil || len(list) != 0 {
			t.Fatalf("refused creates left jobs: %d, %v", len(list), err)
		}

		// Create a walk-in with a catalog step.
		promise := time.Now().Add(48 * time.Hour).In(mustZone(t, loc.Timezone)).Format("2006-01-02T15:04")
		form.Set("promiseTime", promise)
		p := b.post(newJob, form)
		p.want(t, "create a job", http.StatusSeeOther, "")
		jobID := strings.TrimPrefix(p.location, "/jobs/")
		if !strings.HasPrefix(jobID, "job_") {
			t.Fatalf("create redirected to %q, want /jobs/job_...", p.location)
		}
		j := deskJob(t, w, org.ID, jobID)
		if len(j.Steps) != 1 || j.Steps[0].Label != "Oil change" || j.Status != workshop.JobArrived || j.Priority != "high" {
			t.Fatalf("created job = status %s priority %s steps %+v, want arrived, high, one oil change", j.Status, j.Priority, j.Steps)
		}
		if got := j.PromiseTime.In(mustZone(t, loc.Timezone)).Format("2006-01-02T15:04"); got != promise {
			t.Errorf("promise = %s, want %s in the location's zone", got, promise)
		}

		// Find it by its plate in another case and spacing, by number, by
		// the start of a word of its customer's name and by a part of the
		// phone.
		b.get(jobs+"?q="+url.QueryEscape("AB123 CD")).want(t, "find by plate", http.StatusOK, "", `href="/jobs/`+jobID+`"`)
		b.get(jobs+"?q="+url.QueryEscape(j.JobNumber)).want(t, "find by number", http.StatusOK, "", `href="/jobs/`+jobID+`"`)
		b.get(jobs+"?q=br").want(t, "find by a word of the customer", http.StatusOK, "", `href="/jobs/`+jobID+`"`)
		b.get(jobs+"?q="+url.QueryEscape("987655")).want(t, "find by the phone", http.StatusOK, "", `href="/jobs/`+jobID+`"`)
		b.get(jobs+"?q=NOPE").want(t, "find nothing", http.StatusOK, "", "No job number, plate, make, model, external key, customer or phone contains this")
		b.get(jobs).want(t, "open jobs", http.StatusOK, "", `href="/jobs/`+jobID+`"`)
		b.get("/jobs/"+jobID).want(t, "the job page", http.StatusOK, "", "Oil change", "Pending", "Plan", "Actual", "History")
		b.get("/jobs/"+stranger.ID).want(t, "another organisation's job", http.StatusNotFound, "")

		// The plan's proposal for a pending step, accepted for that step
		// alone, with a message of what was done.
		p = b.post(newJob, url.Values{"kind": {"walk_in"}, "vehiclePlate": {"ZZ 1"}, "priority": {"normal"}, "serviceCodes": {"OIL"}})
		p.want(t, "a job to plan", http.StatusSeeOther, "")
		planned := deskJob(t, w, org.ID, strings.TrimPrefix(p.location, "/jobs/"))
		pst := planned.Steps[0]
		b.get("/jobs/"+planned.ID).want(t, "the plan's proposal", http.StatusOK, "", "The plan proposes", "Jonas Weber", "Lift 1",
			`action="/jobs/`+planned.ID+`/steps/`+pst.ID+`/accept#step-`+pst.ID+`"`)
		p = b.post("/jobs/"+planned.ID+"/steps/"+pst.ID+"/accept", url.Values{})
		p.want(t, "accept the proposal", http.StatusSeeOther, "/jobs/"+planned.ID+"?done=accepted&step="+pst.ID+"#step-"+pst.ID)
		b.get(p.location).want(t, "the acceptance said", http.StatusOK, "", "Plan accepted: Oil change assigned to Jonas Weber in Lift 1, planned ")
		if got := deskJob(t, w, org.ID, planned.ID).Steps[0]; len(got.TechIDs) != 1 || got.TechIDs[0] != tech.ID || got.BayID == nil || *got.BayID != bay.ID {
			t.Errorf("the accepted step = techs %v bay %v, want Jonas Weber in Lift 1", got.TechIDs, got.BayID)
		}
		b.post("/jobs/"+planned.ID+"/steps/"+pst.ID+"/accept", url.Values{}).
			want(t, "accept a proposal no longer there", http.StatusConflict, "", "Someone else changed this")

		// Assign, start and complete the step.
		st := j.Steps[0]
		stepPath := "/jobs/" + jobID + "/steps/" + st.ID
		b.post(stepPath+"/assign", url.Values{"techIds": {tech.ID}, "bayId": {bay.ID}, "updatedAt": {ver(st.UpdatedAt)}}).
			want(t, "assign", http.StatusSeeOther, "/jobs/"+jobID+"?done=assigned&step="+st.ID+"#step-"+st.ID)
		st = deskJob(t, w, org.ID, jobID).Steps[0]
		if !slices.Equal(st.TechIDs, []string{tech.ID}) || st.BayID == nil || *st.BayID != bay.ID {
			t.Errorf("assigned step = techs %v bay %v, want [%s] %s", st.TechIDs, st.BayID, tech.ID, bay.ID)
		}
		b.get("/jobs/"+jobID).want(t, "the assigned step", http.StatusOK, "", "Jonas Weber", "Lift 1", `value="`+ver(st.UpdatedAt)+`"`)
		b.post(stepPath+"/assign", url.Values{"techIds": {}, "updatedAt": {ver(j.Steps[0].UpdatedAt)}}).
			want(t, "a stale assignment", http.StatusConflict, "", "Someone else changed this", `value="`+tech.ID+`" checked`)
		b.post("/jobs/"+stranger.ID+"/deliver", url.Values{"updatedAt": {ver(stranger.UpdatedAt)}}).
			want(t, "deliver another organisation's job", http.StatusNotFound, "")
		p = b.post(stepPath+"/start", url.Values{"updatedAt": {ver(st.UpdatedAt)}})
		p.want(t, "start", http.StatusSeeOther, "/jobs/"+jobID+"?done=started&step="+st.ID+"#step-"+st.ID)
		b.get(p.location).want(t, "the start confirmed at its step", http.StatusOK, "", `role="status">Oil change started.`)
		// The address of a write, opened (a reload after a refusal, a bookmark): the job, not Not found.
		b.get(stepPath+"/start").want(t, "GET of a write's address", http.StatusSeeOther, "/jobs/"+jobID)
		b.get("/jobs/"+jobID).want(t, "a step in progress", http.StatusOK, "", "In progress")
		st = deskJob(t, w, org.ID, jobID).Steps[0]
		b.post(stepPath+"/complete", url.Values{"updatedAt": {ver(st.UpdatedAt)}}).want(t, "complete", http.StatusSeeOther, "/jobs/"+jobID+"?done=completed&step="+st.ID+"#step-"+st.ID)
		b.post(stepPath+"/start", url.Values{"updatedAt": {ver(deskJob(t, w, org.ID, jobID).Steps[0].UpdatedAt)}}).
			want(t, "start a completed step", http.StatusConflict, "")

		// A stale edit: refused with the current values.
		j = deskJob(t, w, org.ID, jobID)
		stale := ver(j.UpdatedAt)
		edit := url.Values{"jobNumber": {j.JobNumber}, "vehiclePlate": {"AB 123 CD"}, "vehicleMake": {"VW"}, "vehicleModel": {"Golf"},
			"promiseTime": {promise}, "priority": {"high"}, "updatedAt": {stale}}
		b.post("/jobs/"+jobID+"/edit", edit).want(t, "edit", http.StatusSeeOther, "/jobs/"+jobID+"?done=saved#edit-heading")
		edit.Set("vehicleModel", "Polo")
		p = b.post("/jobs/"+jobID+"/edit", edit)
		p.want(t, "a stale edit", http.StatusConflict, "", "Someone else changed this", `value="Golf"`)
		if strings.Contains(p.body, `value="Polo"`) {
			t.Errorf("a stale edit shows the value sent, want the current one")
		}
		if got := deref(deskJob(t, w, org.ID, jobID).VehicleModel); got != "Golf" {
			t.Errorf("model after a stale edit = %q, want Golf", got)
		}

		// A technician reads but may not write.
		tb := newBrowser(t, srv.URL)
		tb.login("tech@example.com", testPassword, "").want(t, "technician signs in", http.StatusSeeOther, "/")
		p = tb.get("/jobs/" + jobID)
		p.want(t, "a technician's job page", http.StatusOK, "", "Oil change")
		for _, s := range []string{"Deliver to the customer", "/edit", "Add step", `href="` + newJob + `"`} {
			if strings.Contains(p.body, s) {
				t.Errorf("a technician's job page offers %q", s)
			}
		}
		j = deskJob(t, w, org.ID, jobID)
		tb.post("/jobs/"+jobID+"/deliver", url.Values{"updatedAt": {ver(j.UpdatedAt)}}).want(t, "a technician delivers", http.StatusForbidden, "", "Refused")
		tb.post(newJob, form).want(t, "a technician creates", http.StatusForbidden, "")

		// Deliver from a page older than the job: a conflict, nothing done.
		b.post("/jobs/"+jobID+"/deliver", url.Values{"updatedAt": {ver(j.UpdatedAt - 1)}}).
			want(t, "deliver from a stale page", http.StatusConflict, "", "Someone else changed this")
		if got := deskJob(t, w, org.ID, jobID).Status; got == workshop.JobDelivered {
			t.Errorf("a stale deliver delivered the job")
		}
		// Deliver: the webhook events are there.
		p = b.post("/jobs/"+jobID+"/deliver", url.Values{"updatedAt": {ver(j.UpdatedAt)}})
		p.want(t, "deliver", http.StatusSeeOther, "/jobs/"+jobID+"?done=delivered#job-heading")
		b.get(p.location).want(t, "the delivery confirmed", http.StatusOK, "", j.JobNumber+" delivered.")
		if got := deskJob(t, w, org.ID, jobID).Status; got != workshop.JobDelivered {
			t.Errorf("status after deliver = %s, want delivered", got)
		}
		events := jobEvents(t, w, jobID)
		for _, want := range []string{workshop.EventJobCreated, workshop.EventStepCreated, workshop.EventStepCompleted, workshop.EventJobDelivered} {
			if !slices.Contains(events, want) {
				t.Errorf("events of the job = %v, want %s among them", events, want)
			}
		}

		// A booking with a free-text step, cancelled with a reason.
		p = b.post(newJob, url.Values{"kind": {"booking"}, "vehiclePlate": {"XY 9"}, "priority": {"normal"}, "stepLabel": {"Check brakes"}, "stepDuration": {"30"}})
		p.want(t, "create a booking", http.StatusSeeOther, "")
		bookingID := strings.TrimPrefix(p.location, "/jobs/")
		booking := deskJob(t, w, org.ID, bookingID)
		if booking.Status != workshop.JobBooked || len(booking.Steps) != 1 || booking.Steps[0].EstimatedDuration != 30 {
			t.Errorf("booking = %s with %+v, want booked with one 30-minute step", booking.Status, booking.Steps)
		}
		// Never one click: a cancel, and a delivery with a step not
		// completed, ask first and name the steps.
		b.post("/jobs/"+bookingID+"/cancel", url.Values{"updatedAt": {ver(booking.UpdatedAt)}, "reasonTags": {"customer_declined"}}).
			want(t, "cancel unconfirmed", http.StatusSeeOther, "/jobs/"+bookingID+"/cancel")
		b.post("/jobs/"+bookingID+"/deliver", url.Values{"updatedAt": {ver(booking.UpdatedAt)}}).
			want(t, "deliver with a pending step, unconfirmed", http.StatusSeeOther, "/jobs/"+bookingID+"/deliver")
		b.get("/jobs/"+bookingID+"/deliver").want(t, "the delivery's confirmation", http.StatusOK, "", "Check brakes (pending)", `name="confirm" value="yes"`)
		b.get("/jobs/"+bookingID+"/cancel").want(t, "the cancel's confirmation", http.StatusOK, "", "Check brakes (pending)", `value="customer_declined"`)
		if got := deskJob(t, w, org.ID, bookingID).Status; got != workshop.JobBooked {
			t.Errorf("status after unconfirmed deliver and cancel = %s, want booked", got)
		}
		b.post("/jobs/"+bookingID+"/cancel", url.Values{"updatedAt": {ver(booking.UpdatedAt)}, "confirm": {"yes"}}).
			want(t, "cancel without a reason", http.StatusUnprocessableEntity, "", `id="reasonTags-error"`, "Check brakes (pending)")
		b.post("/jobs/"+bookingID+"/cancel", url.Values{"updatedAt": {ver(booking.UpdatedAt)}, "reasonTags": {"customer_declined"}, "confirm": {"yes"}}).
			want(t, "cancel", http.StatusSeeOther, "/jobs/"+bookingID+"?done=cancelled#job-heading")
		if got := deskJob(t, w, org.ID, bookingID); got.Status != workshop.JobCancelled || !slices.Equal(got.CancelReasons, []string{"customer_declined"}) {
			t.Errorf("cancelled job = %s %v, want cancelled [customer_declined]", got.Status, got.CancelReasons)
		}

		// The store's rules reach the page: a taken job number beside its
		// field, a technician over their WIP limit beside the technicians.
		first, second := w.job(org.ID, loc.ID), w.job(org.ID, loc.ID)
		edit = url.Values{"jobNumber": {first.JobNumber}, "priority": {"normal"}, "updatedAt": {ver(second.UpdatedAt)}}
		b.post("/jobs/"+second.ID+"/edit", edit).want(t, "a taken job number", http.StatusUnprocessableEntity, "",
			`id="jobNumber-error"`, first.JobNumber)
		busy, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Busy Bee", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, jb := range []workshop.Job{first, second} {
			st := w.step(org.ID, jb.ID)
			path := "/jobs/" + jb.ID + "/steps/" + st.ID
			b.post(path+"/assign", url.Values{"techIds": {busy.ID}, "updatedAt": {ver(st.UpdatedAt)}}).want(t, "assign the busy technician", http.StatusSeeOther, "")
			st = deskJob(t, w, org.ID, jb.ID).Steps[0]
			p := b.post(path+"/start", url.Values{"updatedAt": {ver(st.UpdatedAt)}})
			if i == 0 {
				p.want(t, "start within the WIP limit", http.StatusSeeOther, "")
			} else {
				p.want(t, "start over the WIP limit", http.StatusUnprocessableEntity, "", `id="techs-`+st.ID+`-error"`, "their limit is 1")
			}
		}

		// Day close: a banner on every page of the location, writes refused.
		open := w.job(org.ID, loc.ID)
		if _, err := w.op.StartDayClose(ctx, loc.ID); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{jobs, newJob, "/jobs/" + open.ID} {
			b.get(path).want(t, "day close banner on "+path, http.StatusOK, "", `role="status"`, "Day close in progress")
		}
		b.post(newJob, form).want(t, "create during day close", http.StatusConflict, "", "The day is being closed")
		b.post("/jobs/"+open.ID+"/steps", url.Values{"label": {"Wash"}, "estimatedDuration": {"10"}}).
			want(t, "add a step during day close", http.StatusConflict, "", "The day is being closed")
		if got := deskJob(t, w, org.ID, open.ID); len(got.Steps) != 0 {
			t.Errorf("a step was added during the day close: %+v", got.Steps)
		}
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	z, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
