package main

import (
	"context"
	"io"
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

// startServerAt runs the real server with its clock stopped at now.
func startServerAt(t *testing.T, databaseURL string, now time.Time) *apitest.Server {
	t.Helper()
	return apitest.Start(t, databaseURL, func(ctx context.Context, c apitest.Config) error {
		cfg := testServeConfig(c)
		cfg.now = func() time.Time { return now }
		return serveWith(ctx, cfg, io.Discard, c.Log)
	})
}

// morningAfter is a workshop (open 08:00-17:30 on weekdays) on the
// Saturday morning after a Friday that was not closed, Saturday's work
// begun: Friday left Brakes in progress since 09:00 and Jonas clocked in
// since 08:00, Aylin worked 08:00-16:00, and a booking did not come;
// since 05:13 on Saturday, Aylin is clocked in again, a car that was
// promised for Friday arrived, and its step was started.
type morningAfter struct {
	w                    *testWorld
	org                  *testOrg
	loc                  workshop.Location
	jonas, aylin         workshop.Technician
	friday, saturday     string // the dates
	now                  time.Time
	brakes, saturdayStep workshop.Step
	working, late        workshop.Job
	noShow               workshop.Job
	closePath, advisor   string
}

// newMorningAfter makes the world a week or so after today, so that
// every record made now is older than the server's stopped clock.
func newMorningAfter(t *testing.T, databaseURL string) *morningAfter {
	t.Helper()
	ctx := context.Background()
	zone := mustZone(t, "Europe/Berlin")
	day := time.Now().In(zone).AddDate(0, 0, 3)
	for day.Weekday() != time.Saturday {
		day = day.AddDate(0, 0, 1)
	}
	at := func(d, hh, mm int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day()+d, hh, mm, 0, 0, zone)
	}
	m := &morningAfter{now: at(0, 7, 45), friday: at(-1, 0, 0).Format(time.DateOnly), saturday: day.Format(time.DateOnly),
		advisor: "advisor@morning.example"}
	st := storetest.Open(t, databaseURL, store.WithClock(func() time.Time { return m.now }))
	op := operator.New(st)
	op.Now = func() time.Time { return m.now }
	m.w = &testWorld{t: t, st: st, op: op}
	m.org = m.w.orgIn("Morning Motors", "pro", "Europe/Berlin")
	m.loc = m.org.Locations[0]
	m.closePath = "/locations/" + m.loc.ID + "/day-close"
	appUser(t, m.w, m.org.ID, m.advisor, workshop.RoleAdvisor, testPassword)
	weekdays := workshop.Settings{BayBufferMinutes: 10, PlanningDurations: workshop.PlanWithEstimate}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		weekdays.OperatingHours = append(weekdays.OperatingHours, workshop.OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
	}
	if err := st.SetSettings(ctx, m.loc.ID, weekdays); err != nil {
		t.Fatal(err)
	}
	v := store.Visibility{OrgID: m.org.ID}
	tech := func(name string) workshop.Technician {
		t.Helper()
		tec, err := op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: m.loc.ID, Name: name, WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		return tec
	}
	m.jonas, m.aylin = tech("Jonas Weber"), tech("Aylin Demir")
	clock := func(tec workshop.Technician, in time.Time, out *time.Time) {
		t.Helper()
		if _, err := st.ClockIn(ctx, v, tec.ID, in); err != nil {
			t.Fatal(err)
		}
		if out == nil {
			return
		}
		if _, err := st.ClockOut(ctx, v, tec.ID, *out); err != nil {
			t.Fatal(err)
		}
	}
	clock(m.jonas, at(-1, 8, 0), nil)
	clock(m.aylin, at(-1, 8, 0), refTo(at(-1, 16, 0)))
	clock(m.aylin, at(0, 5, 13), nil)
	job := func(promise, arrival *time.Time) workshop.Job {
		t.Helper()
		j := m.w.job(m.org.ID, m.loc.ID)
		p := store.JobPatch{UpdatedAt: j.UpdatedAt, ArrivalTime: refTo[*workshop.OffsetTime](nil)}
		if promise != nil {
			p.PromiseTime = refTo(&workshop.OffsetTime{Time: *promise})
		}
		if arrival != nil {
			p.ArrivalTime = refTo(&workshop.OffsetTime{Time: *arrival})
		}
		j, err := st.PatchJob(ctx, v, j.ID, p, workshop.MicrosOf(m.now))
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	started := func(j workshop.Job, label string, start time.Time) workshop.Step {
		t.Helper()
		s := m.w.step(m.org.ID, j.ID)
		s, err := st.PatchStep(ctx, v, j.ID, s.ID, store.StepPatch{UpdatedAt: s.UpdatedAt, Label: &label, TechIDs: &[]string{m.jonas.ID},
			Status: refTo(workshop.StepInProgress), ActualStart: refTo(workshop.MicrosOf(start))}, workshop.MicrosOf(m.now))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m.working = job(refTo(at(-1, 17, 0)), refTo(at(-1, 8, 0)))
	m.brakes = started(m.working, "Brakes", at(-1, 9, 0))
	m.noShow = job(refTo(at(-1, 10, 0)), nil)
	job(refTo(at(0, 10, 0)), nil) // Saturday's booking
	m.late = job(refTo(at(-1, 16, 0)), refTo(at(0, 5, 10)))
	m.saturdayStep = started(m.late, "Saturday's step", at(0, 5, 13))
	return m
}

// The close of Friday made on Saturday morning in the application
// (issue 43, item 1): the board notes Friday was not closed until its
// close starts; the checklist and the summary are Friday's alone, the
// summary's hours counted up to the closing time offered for the shift
// left open; a completion after Friday is refused, naming the day; the
// counts follow the decisions.
func TestAppDayCloseTheMorningAfter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		m := newMorningAfter(t, db.URL)
		srv := startServerAt(t, db.URL, m.now)
		b := newBrowser(t, srv.URL)
		b.login(m.advisor, testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
		board := "/locations/" + m.loc.ID + "/board"
		b.get(board).want(t, "the board notes Friday", http.StatusOK, "", long(m.friday)+" has not been closed.")
		b.post(m.closePath+"/start", url.Values{"date": {m.friday}}).want(t, "start Friday's close", http.StatusSeeOther, m.closePath)
		p := b.get(board)
		p.want(t, "the board during the close", http.StatusOK, "", "Day close in progress")
		p.wantNot(t, "the board during the close", "has not been closed")

		p = b.get(m.closePath)
		fridayAt := func(hhmm string) string { return m.friday + "T" + hhmm }
		p.want(t, "Friday's checklist", http.StatusOK, "", "Closing <strong>"+long(m.friday)+"</strong>",
			"<strong>Brakes</strong> in progress since", `value="`+fridayAt("17:30")+`" max="`+fridayAt("23:59")+`"`,
			"<strong>Jonas Weber</strong> clocked in", m.noShow.JobNumber, " · expected ", m.working.JobNumber,
			"<dt>Steps completed</dt><dd>0</dd>", "<dt>Hours clocked</dt><dd>17:30</dd>", "<dt>Items carried over</dt><dd>0</dd>",
			"4 open items need a decision")
		p.wantNot(t, "Friday's checklist", "Saturday&#39;s step", "Aylin Demir</strong> clocked in", m.late.JobNumber)

		stepAction := m.closePath + "/steps/" + m.brakes.ID + "/complete"
		stepForm := url.Values{"jobId": {m.working.ID}, "updatedAt": {ver(m.brakes.UpdatedAt)}, "at": {m.saturday + "T06:00"}}
		b.post(stepAction, stepForm).want(t, "complete Brakes on Saturday", http.StatusUnprocessableEntity, "",
			"by the end of "+long(m.friday))
		b.post(m.closePath+"/carry-over", url.Values{"kind": {"booking"}, "id": {m.noShow.ID}}).
			want(t, "carry the booking over", http.StatusSeeOther, "")
		b.get(m.closePath).want(t, "one carried over", http.StatusOK, "", "<dt>Items carried over</dt><dd>1</dd>")
		stepForm.Set("at", fridayAt("17:30"))
		b.post(stepAction, stepForm).want(t, "complete Brakes at Friday's closing time", http.StatusSeeOther, "")
		b.post(m.closePath+"/technicians/"+m.jonas.ID+"/clock-out", url.Values{"at": {fridayAt("17:30")}}).
			want(t, "clock Jonas out at Friday's closing time", http.StatusSeeOther, "")
		fin := b.post(m.closePath+"/finish", url.Values{})
		fin.want(t, "finish", http.StatusSeeOther, "")
		if !strings.HasPrefix(fin.location, "/day-closes/") {
			t.Fatalf("the finish went to %q, want the closed day", fin.location)
		}
		b.get(fin.location).want(t, "Friday's summary", http.StatusOK, "", long(m.friday), "<dt>Steps completed</dt><dd>1</dd>",
			"<dt>Hours clocked</dt><dd>17:30</dd>", "<dt>Items carried over</dt><dd>1</dd>")
	})
}
