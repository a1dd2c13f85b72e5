package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	closePath := func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/day-close" }
	post := func(name, sub string) appAction {
		return appAction{name: name, method: "POST", path: func(m *matrixWorld) string { return closePath(m) + sub },
			form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: jobWriters}
	}
	appActions = append(appActions,
		appAction{name: "day close page", method: "GET", path: closePath, allowed: jobWriters},
		post("start the day close", "/start"),
		post("carry an item over", "/carry-over"),
		post("complete a step at the close", "/steps/stp_x/complete"),
		post("clock out at the close", "/technicians/tec_x/clock-out"),
		post("move a promise at the close", "/jobs/job_x/promise"),
		post("cancel a no-show at the close", "/jobs/job_x/no-show"),
		post("finish the day close", "/finish"),
		appAction{name: "a closed day", method: "GET", path: func(*matrixWorld) string { return "/day-closes/dcl_missing" },
			allowed: everyRole}, // not found for everyone: nothing to refuse
	)
}

// dayCloseWorld is a location in the middle of its day: a technician
// clocked in, a job with a step in progress promised for today, and a
// booking due this morning that did not come.
type dayCloseWorld struct {
	w                  *testWorld
	org                *testOrg
	loc                workshop.Location
	tech               workshop.Technician
	working, booking   workshop.Job
	step               workshop.Step
	started            time.Time // the clock-in and the step's start, in the location's zone
	today              string    // the location's local date
	attendanceID       string
	closePath, advisor string
}

func newDayCloseWorld(t *testing.T, databaseURL string) *dayCloseWorld {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, databaseURL)
	o := w.org("Closing Motors", "pro", 1)
	loc := o.Locations[0]
	zone := mustZone(t, loc.Timezone)
	now := time.Now().In(zone)
	dc := &dayCloseWorld{w: w, org: o, loc: loc, closePath: "/locations/" + loc.ID + "/day-close", advisor: "advisor@closing.example",
		today: now.Format(time.DateOnly)}
	appUser(t, w, o.ID, dc.advisor, workshop.RoleAdvisor, testPassword)
	var err error
	if dc.tech, err = w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas", WIPLimit: 2}); err != nil {
		t.Fatal(err)
	}
	v := store.Visibility{OrgID: o.ID}
	// Clocked in and started 20 s into a minute two minutes ago: a
	// clock-out or a completion given to that minute, as the close's forms
	// give them, falls before the clock-in or the start.
	dc.started = now.Truncate(time.Minute).Add(-2*time.Minute + 20*time.Second)
	att, err := w.st.ClockIn(ctx, v, dc.tech.ID, dc.started)
	if err != nil {
		t.Fatal(err)
	}
	dc.attendanceID = att.ID
	endOfDay := time.Date(now.Year(), now.Month(), now.Day(), 23, 59, 0, 0, zone)
	dc.working = w.job(o.ID, loc.ID)
	dc.working, err = w.st.PatchJob(ctx, v, dc.working.ID, store.JobPatch{UpdatedAt: dc.working.UpdatedAt,
		PromiseTime: refTo(&workshop.OffsetTime{Time: endOfDay}), ArrivalTime: refTo(&workshop.OffsetTime{Time: now.Add(-time.Hour)})},
		workshop.MicrosOf(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	dc.step = w.step(o.ID, dc.working.ID)
	if dc.step, err = w.st.PatchStep(ctx, v, dc.working.ID, dc.step.ID, store.StepPatch{UpdatedAt: dc.step.UpdatedAt,
		Status: refTo(workshop.StepInProgress), ActualStart: refTo(workshop.MicrosOf(dc.started))}, workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	now2 := workshop.MicrosOf(time.Now())
	due := workshop.OffsetTime{Time: now.Add(-time.Hour)}
	res, err := w.st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: o.ID, LocationID: loc.ID, Priority: "normal",
		Source: "phone", PromiseTime: &due, CreatedAt: now2, UpdatedAt: now2, Steps: []workshop.Step{}}, false)
	if err != nil {
		t.Fatal(err)
	}
	dc.booking = res.Job
	return dc
}

func refTo[T any](v T) *T { return &v }

// advisorOn starts a server on the world's database and signs its advisor
// in to the application there.
func (dc *dayCloseWorld) advisorOn(t *testing.T, databaseURL string) (*apitest.Server, *browser) {
	t.Helper()
	srv := startServer(t, databaseURL)
	b := newBrowser(t, srv.URL)
	b.login(dc.advisor, testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
	return srv, b
}

// dayBefore is the last working day before today, which a fresh world has
// not closed: the day a close the morning after is for.
func (dc *dayCloseWorld) dayBefore(t *testing.T) string {
	t.Helper()
	days, err := dc.w.op.DaysToClose(context.Background(), dc.loc.ID)
	if err != nil || days.Today != dc.today || days.Before == "" {
		t.Fatalf("DaysToClose = %+v, %v; want today (%s) and the day before, not closed yet", days, err, dc.today)
	}
	return days.Before
}

// long is a local date as the day close's page writes it.
func long(date string) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		panic(err)
	}
	return d.Format("Monday 2 January 2006")
}

// The day close as staff work it: start (API writes refused at once, a
// banner), the checklist with an action for each open item, finish only
// once each has a decision, the summary kept; starting and finishing
// twice are harmless, and the API writes again after.
func TestAppDayClose(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		dc := newDayCloseWorld(t, db.URL)
		srv, b := dc.advisorOn(t, db.URL)
		b.get(dc.closePath).want(t, "the day is open", http.StatusOK, "", "The day is open", `name="date" value="`+dc.today+`"`,
			"(today)</button>", "No day has been closed here yet")

		for range 2 { // a start sent twice makes one close
			b.post(dc.closePath+"/start", url.Values{}).want(t, "start", http.StatusSeeOther, dc.closePath)
		}
		patchStep := func() *apitest.Response {
			return apitest.Call(t, srv.URL, apitest.Request{Method: "PATCH", Key: dc.org.Key.Key,
				Path: "/v1/scheduler/jobs/" + dc.working.ID + "/steps/" + dc.step.ID,
				Body: map[string]any{"updatedAt": dc.step.UpdatedAt.String(), "label": "Brakes, front"}})
		}
		wantProblem(t, patchStep(), http.StatusConflict, "day_close_in_progress", "")

		p := b.get(dc.closePath)
		p.want(t, "the checklist", http.StatusOK, "", "Day close in progress", "Steps still in progress", dc.working.JobNumber,
			"Jonas</strong> clocked in", "Bookings that did not arrive", dc.booking.JobNumber, "4 open items need a decision",
			`disabled>Finish the day close`)
		if n := strings.Count(p.body, "Carry over</button>"); n != 4 {
			t.Errorf("carry-over buttons = %d, want 4 (one per open item)", n)
		}
		b.post(dc.closePath+"/finish", url.Values{}).want(t, "finish with items open", http.StatusConflict, "", "needs a decision", "4 still open")

		zone := mustZone(t, dc.loc.Timezone)
		future := time.Now().Add(2 * time.Hour).In(zone).Format("2006-01-02T15:04")
		stepAction := dc.closePath + "/steps/" + dc.step.ID + "/complete"
		stepForm := url.Values{"jobId": {dc.working.ID}, "updatedAt": {ver(dc.step.UpdatedAt)}, "at": {future}}
		refused := b.post(stepAction, stepForm)
		refused.want(t, "complete in the future", http.StatusUnprocessableEntity, "", "not later than now")
		if got, want := refused.header.Get("HX-Reswap"), "innerHTML show:#step-"+dc.step.ID+":top"; got != want {
			t.Errorf("the refusal's HX-Reswap = %q, want %q: shown beside its item", got, want)
		}
		stepForm.Set("at", dc.started.Format("2006-01-02T15:04"))
		completedDone := dc.closePath + "?done=completed&item=step-" + dc.step.ID + "&job=" + dc.working.ID + "#close-done"
		b.post(stepAction, stepForm).want(t, "complete the step in the minute it started", http.StatusSeeOther, completedDone)
		b.get(completedDone).want(t, "the completion confirmed, naming the step and its time", http.StatusOK, "",
			"Done: "+dc.step.Label+" ("+dc.working.JobNumber+") is recorded as completed at "+dc.started.In(zone).Format("Mon 2 Jan 15:04")+".")
		if got := deskJob(t, dc.w, dc.org.ID, dc.working.ID).Steps[0].CompletedAt; got == nil || !got.Time().Equal(dc.started) {
			t.Errorf("completed at %v, want %v: a time given to the minute of the start is the start", got, dc.started)
		}
		b.post(dc.closePath+"/technicians/"+dc.tech.ID+"/clock-out", url.Values{"at": {dc.started.Format("2006-01-02T15:04")}}).
			want(t, "clock the technician out in the minute of the clock-in", http.StatusSeeOther, dc.closePath+"?done=clocked-out&item=attendance-"+dc.tech.ID+"#close-done")
		b.get(dc.closePath+"?done=clocked-out&item=attendance-"+dc.tech.ID).want(t, "the clock-out confirmed, naming the technician",
			http.StatusOK, "", `id="close-done" class="confirmation" role="status">Done: `+dc.tech.Name+` is clocked out.`)
		done := b.get(dc.closePath + "?done=clocked-out")
		done.want(t, "the clock-out confirmed without an item", http.StatusOK, "", `id="close-done" class="confirmation" role="status">Done: the technician is clocked out.`)
		if got, want := done.header.Get("HX-Reswap"), "innerHTML show:#close-done:top"; got != want {
			t.Errorf("the confirmation's HX-Reswap = %q, want %q: shown in view", got, want)
		}
		if a, err := dc.w.st.AttendanceRecord(context.Background(), store.Visibility{OrgID: dc.org.ID}, dc.attendanceID); err != nil ||
			a.ClockOut == nil || !a.ClockOut.Equal(dc.started) {
			t.Errorf("clock-out %v (%v), want %v: a time given to the minute of the clock-in is the clock-in", a.ClockOut, err, dc.started)
		}
		b.post(dc.closePath+"/jobs/"+dc.booking.ID+"/no-show", url.Values{"updatedAt": {"1"}, "reasonTag": {"customer_declined"}}).
			want(t, "cancel a no-show from a stale page", http.StatusConflict, "", "Someone else changed this")
		carried := b.post(dc.closePath+"/carry-over", url.Values{"kind": {"booking"}, "id": {dc.booking.ID}})
		carried.want(t, "carry the booking over", http.StatusSeeOther, "")
		b.get(carried.location).want(t, "the carry-over confirmed, naming the job", http.StatusOK, "",
			"Done: "+dc.booking.JobNumber+" is carried over to the next day.")

		p = b.get(dc.closePath)
		p.want(t, "every item decided", http.StatusOK, "", "No step is in progress.", "Every technician has clocked out.",
			"Every promise due by the day&#39;s end is kept.", "Carried over to the next day", "Finish the day close</button>")
		p.wantNot(t, "every item decided", "need a decision", "disabled>Finish")
		fin := b.post(dc.closePath+"/finish", url.Values{})
		fin.want(t, "finish", http.StatusSeeOther, "")
		if !strings.HasPrefix(fin.location, "/day-closes/dcl_") {
			t.Fatalf("finish went to %q, want the closed day's page", fin.location)
		}
		b.get(fin.location).want(t, "the closed day", http.StatusOK, "", "Summary of the day", "finished by "+dc.advisor,
			"<dt>Steps completed</dt><dd>1</dd>", "<dt>Items carried over</dt><dd>1</dd>",
			"Left open for the next day", `<a href="/jobs/`+dc.booking.ID+`">`+dc.booking.JobNumber+`</a>`,
			"the booking did not arrive", "carried over by "+dc.advisor)
		b.post(dc.closePath+"/finish", url.Values{}).want(t, "finish twice", http.StatusNotFound, "", "finished already")
		b.get(dc.closePath).want(t, "open again, the day kept and said to be closed", http.StatusOK, "", `href="`+fin.location+`"`,
			" was closed at ", `(<a href="`+fin.location+`">its summary</a>)`, `class="secondary">Start closing `, " (today) again</button>")
		b.get("/locations/"+dc.loc.ID+"/board").wantNot(t, "no banner after the finish", "Day close in progress")

		st := deskJob(t, dc.w, dc.org.ID, dc.booking.ID)
		if st.Status != workshop.JobBooked {
			t.Errorf("the carried-over booking is %s, want still booked", st.Status)
		}
		res := apitest.Call(t, srv.URL, apitest.Request{Method: "PATCH", Key: dc.org.Key.Key, Path: "/v1/scheduler/jobs/" + dc.booking.ID,
			Body: map[string]any{"updatedAt": st.UpdatedAt.String(), "priority": "high"}})
		if res.Status != http.StatusOK {
			t.Errorf("API write after the close: status %d, want 200: %s", res.Status, res.Body)
		}
	})
}

// A close survives a restart of the server: the checklist is where it
// was, and the close finishes on the new process.
func TestAppDayCloseAcrossRestart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		dc := newDayCloseWorld(t, db.URL)
		srv, b := dc.advisorOn(t, db.URL)
		b.post(dc.closePath+"/start", url.Values{}).want(t, "start", http.StatusSeeOther, dc.closePath)
		b.post(dc.closePath+"/carry-over", url.Values{"kind": {"step"}, "id": {dc.step.ID}}).want(t, "carry the step over", http.StatusSeeOther, "")
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}

		_, b = dc.advisorOn(t, db.URL) // a new server, on another port: the cookie was the old address's
		b.get(dc.closePath).want(t, "after the restart", http.StatusOK, "", "Day close in progress", "Carried over to the next day",
			"3 open items need a decision")
		for _, kind := range []string{"attendance", "promise", "booking"} {
			id := map[string]string{"attendance": dc.tech.ID, "promise": dc.working.ID, "booking": dc.booking.ID}[kind]
			b.post(dc.closePath+"/carry-over", url.Values{"kind": {kind}, "id": {id}}).want(t, "carry over "+kind, http.StatusSeeOther, "")
		}
		b.post(dc.closePath+"/finish", url.Values{}).want(t, "finish on the new process", http.StatusSeeOther, "")
	})
}

// The close of the day before, as made the morning after: the page offers
// the last working day while it is not closed, beside today; a date not
// offered is refused; the close's checklist and summary are that day's,
// and once it is closed only today is offered.
func TestAppDayCloseOfTheDayBefore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		dc := newDayCloseWorld(t, db.URL)
		_, b := dc.advisorOn(t, db.URL)
		before := dc.dayBefore(t)
		b.get(dc.closePath).want(t, "both days offered", http.StatusOK, "", `name="date" value="`+before+`"`,
			"Start closing "+long(before)+"</button>", `name="date" value="`+dc.today+`"`, "Start closing "+long(dc.today)+" (today)</button>")
		b.post(dc.closePath+"/start", url.Values{"date": {"2020-01-06"}}).want(t, "a day not offered", http.StatusUnprocessableEntity, "",
			"today or for the last working day")
		b.post(dc.closePath+"/start", url.Values{"date": {before}}).want(t, "start the day before", http.StatusSeeOther, dc.closePath)
		p := b.get(dc.closePath)
		p.want(t, "the day before's checklist", http.StatusOK, "", "Closing <strong>"+long(before)+"</strong>", "Steps still in progress",
			"Every booking due by the day&#39;s end arrived.")
		for _, item := range []url.Values{{"kind": {"step"}, "id": {dc.step.ID}}, {"kind": {"attendance"}, "id": {dc.tech.ID}}} {
			b.post(dc.closePath+"/carry-over", item).want(t, "carry "+item.Get("kind")+" over", http.StatusSeeOther, "")
		}
		fin := b.post(dc.closePath+"/finish", url.Values{})
		fin.want(t, "finish", http.StatusSeeOther, "")
		b.get(fin.location).want(t, "the closed day is the day before", http.StatusOK, "", long(before))
		open := b.get(dc.closePath)
		open.want(t, "only today offered now", http.StatusOK, "", "Start closing "+long(dc.today)+" (today)</button>")
		open.wantNot(t, "only today offered now", `name="date" value="`+before+`"`)
	})
}

// The board's note of a day not closed: work started before today and
// still open (a step in progress, a technician clocked in) is pointed out
// to those who close days, with the way to close that day, until that day
// is closed; the wall display does not show it.
func TestAppBoardNotesADayLeftOpen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		dc := newDayCloseWorld(t, db.URL)
		zone := mustZone(t, dc.loc.Timezone)
		yesterday := time.Now().In(zone).AddDate(0, 0, -1)
		at := func(hh int) time.Time {
			return time.Date(yesterday.Year(), yesterday.Month(), yesterday.Day(), hh, 0, 0, 0, zone)
		}
		v := store.Visibility{OrgID: dc.org.ID}
		tech, err := dc.w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: dc.loc.ID, Name: "Aylin", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dc.w.st.ClockIn(ctx, v, tech.ID, at(8)); err != nil {
			t.Fatal(err)
		}
		job := dc.w.job(dc.org.ID, dc.loc.ID)
		if job, err = dc.w.st.PatchJob(ctx, v, job.ID, store.JobPatch{UpdatedAt: job.UpdatedAt,
			ArrivalTime: refTo(&workshop.OffsetTime{Time: at(9)})}, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}
		st := dc.w.step(dc.org.ID, job.ID)
		if _, err := dc.w.st.PatchStep(ctx, v, job.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, Status: refTo(workshop.StepInProgress),
			ActualStart: refTo(workshop.MicrosOf(at(10)))}, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}
		srv, b := dc.advisorOn(t, db.URL)
		board := "/locations/" + dc.loc.ID + "/board"
		before := dc.dayBefore(t)
		// Today's own work (dc's step and clock-in) is not counted: only
		// what began before today.
		b.get(board).want(t, "the note", http.StatusOK, "", long(before)+" has not been closed.",
			"Still open from\n  before today: 1 step in progress and 1 technician clocked in.", `<a href="`+dc.closePath+`">Close that day</a>`)
		b.get(board+"?display=wall").wantNot(t, "no note on the wall display", "has not been closed")
		appUser(t, dc.w, dc.org.ID, "tech@closing.example", workshop.RoleTechnician, testPassword)
		tb := newBrowser(t, srv.URL)
		tb.login("tech@closing.example", testPassword, "").want(t, "a technician signs in", http.StatusSeeOther, "")
		tp := tb.get(board)
		tp.want(t, "a technician's board", http.StatusOK, "", `id="jobs-heading"`)
		tp.wantNot(t, "no note for a technician, who does not close days", "has not been closed")

		b.post(dc.closePath+"/start", url.Values{"date": {before}}).want(t, "start the day before", http.StatusSeeOther, dc.closePath)
		for _, item := range []url.Values{{"kind": {"step"}, "id": {dc.step.ID}}, {"kind": {"step"}, "id": {st.ID}},
			{"kind": {"attendance"}, "id": {dc.tech.ID}}, {"kind": {"attendance"}, "id": {tech.ID}}} {
			b.post(dc.closePath+"/carry-over", item).want(t, "carry "+item.Get("kind")+" over", http.StatusSeeOther, "")
		}
		b.post(dc.closePath+"/finish", url.Values{}).want(t, "finish", http.StatusSeeOther, "")
		b.get(board).wantNot(t, "no note once that day is closed", "has not been closed")
	})
}
