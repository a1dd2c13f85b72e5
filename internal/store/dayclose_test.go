package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A day close: one close however often it is started; job and step
// writes refused meanwhile but the close's own; a checklist of every open
// item; a strict finish only once each has a decision; the day's summary
// kept with the close.
func TestDayCloseWorkflow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		date := e.clk.Now().In(berlin(t)).Format(time.DateOnly) // 2026-11-21, 11:15 in Berlin
		promise := func(h int) func(*workshop.Job) {
			return func(j *workshop.Job) {
				j.PromiseTime = &workshop.OffsetTime{Time: time.Date(2026, 11, 21, h, 0, 0, 0, berlin(t))}
			}
		}
		arrived := withArrival(e.clk.Now())
		tech := e.technician(t, e.loc.ID, 3)
		if _, err := e.st.ClockIn(ctx, e.v, tech.ID, e.clk.Now().Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		working := e.createJob(t, e.loc.ID, arrived, promise(16))
		step := e.setStepStatus(t, e.createStep(t, working.ID, "Brakes"), workshop.StepInProgress)
		done := e.createJob(t, e.loc.ID, arrived)
		e.setStepStatus(t, e.setStepStatus(t, e.createStep(t, done.ID, "Oil"), workshop.StepInProgress), workshop.StepCompleted)
		booking := e.createJob(t, e.loc.ID, promise(9))
		e.createJob(t, e.loc.ID, func(j *workshop.Job) { // promised for tomorrow: not today's to decide
			j.PromiseTime = &workshop.OffsetTime{Time: time.Date(2026, 11, 22, 9, 0, 0, 0, berlin(t))}
		})

		start := store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: date, By: e.user.ID}
		first, err := e.st.StartDayClose(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		start.By = "usr_other"
		if again, err := e.st.StartDayClose(ctx, start); err != nil || again.ID != first.ID || again.StartedBy != e.user.ID {
			t.Errorf("second start = %+v, %v, want the first close %s started by %s", again, err, first.ID, e.user.ID)
		}

		_, err = e.st.PatchStep(ctx, e.v, working.ID, step.ID, store.StepPatch{UpdatedAt: step.UpdatedAt,
			Status: refOf(workshop.StepCompleted)}, e.now())
		wantCode(t, err, workshop.CodeDayCloseInProgress)

		view, err := e.st.DayCloseView(ctx, e.org.ID, e.loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		type item struct {
			kind workshop.CloseItemKind
			id   string
		}
		var got []item
		for _, it := range view.Items {
			got = append(got, item{it.Kind, it.ID})
		}
		want := []item{{workshop.CloseStepInProgress, step.ID}, {workshop.CloseClockedIn, tech.ID},
			{workshop.CloseBookingMissed, booking.ID}, {workshop.ClosePromiseMissed, working.ID}}
		if !slices.Equal(got, want) {
			t.Errorf("checklist = %v, want %v", got, want)
		}

		_, err = e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, By: e.user.ID, Strict: true})
		wantCode(t, err, workshop.CodeInvalidTransition)

		// the close's own actions: the step completed an hour ago, the
		// technician clocked out, the rest carried over
		closing := store.Visibility{OrgID: e.org.ID, ClosingDay: true}
		earlier := e.now() - workshop.Micros(time.Hour/time.Microsecond)
		e.clk.Advance(time.Minute)
		if _, err := e.st.PatchStep(ctx, closing, working.ID, step.ID, store.StepPatch{UpdatedAt: step.UpdatedAt,
			Status: refOf(workshop.StepCompleted), ActualEnd: &earlier}, e.now()); err == nil {
			t.Error("completed before it started: no error")
		}
		completed, err := e.st.PatchStep(ctx, closing, working.ID, step.ID, store.StepPatch{UpdatedAt: step.UpdatedAt,
			Status: refOf(workshop.StepCompleted), ActualEnd: refOf(e.now() - 1)}, e.now())
		if err != nil || *completed.CompletedAt != e.now()-1 {
			t.Fatalf("complete at a time: %+v, %v", completed.CompletedAt, err)
		}
		if _, err := e.st.ClockOut(ctx, e.v, tech.ID, e.clk.Now()); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{booking.ID, working.ID} {
			kind := workshop.ClosePromiseMissed
			if id == booking.ID {
				kind = workshop.CloseBookingMissed
			}
			for range 2 { // carried over twice: once
				if err := e.st.CarryOver(ctx, e.org.ID, e.loc.ID, kind, id, e.user.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		closed, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, By: e.user.ID, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		// the working job is ready now that its step is completed: its
		// carried-over promise left the list by itself
		wantSum := workshop.DaySummary{StepsCompleted: 2, MinutesEstimated: 60, MinutesClocked: 121, CarriedOver: 1}
		if closed.Summary == nil || *closed.Summary != wantSum || closed.FinishedBy != e.user.ID {
			t.Errorf("finished close = %+v (summary %+v), want summary %+v by %s", closed, closed.Summary, wantSum, e.user.ID)
		}
		// what the close left open is the booking alone, as counted
		carried, err := e.st.CarriedItems(ctx, e.org.ID, closed.ID)
		if err != nil || len(carried) != 1 || carried[0].Kind != workshop.CloseBookingMissed || carried[0].JobID != booking.ID ||
			carried[0].JobNumber != booking.JobNumber || carried[0].DecidedBy != e.user.ID || carried[0].DecidedAt == 0 {
			t.Errorf("carried items = %+v (%v), want the booking %s alone, decided by %s", carried, err, booking.JobNumber, e.user.ID)
		}
		if other, err := e.st.CarriedItems(ctx, "org_other", closed.ID); err != nil || len(other) != 0 {
			t.Errorf("another organisation's carried items = %+v (%v), want none", other, err)
		}
		_, err = e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, By: "usr_other", Strict: true})
		wantCode(t, err, workshop.CodeNotFound)
		err = e.st.CarryOver(ctx, e.org.ID, e.loc.ID, workshop.ClosePromiseMissed, working.ID, e.user.ID)
		wantCode(t, err, workshop.CodeNotFound)

		if _, err := e.st.PatchJob(ctx, e.v, booking.ID, store.JobPatch{UpdatedAt: booking.UpdatedAt, Priority: refOf("high")}, e.now()); err != nil {
			t.Errorf("a write after the finish: %v", err)
		}
		view, err = e.st.DayCloseView(ctx, e.org.ID, e.loc.ID)
		if err != nil || view.Current != nil || len(view.Recent) != 1 || view.Recent[0].Summary == nil || *view.Recent[0].Summary != wantSum {
			t.Errorf("after the finish: current %+v, recent %+v, %v; want none under way and the close kept", view.Current, view.Recent, err)
		}
		if _, err := e.st.DayCloseView(ctx, "org_other", e.loc.ID); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("another organisation's view: %v, want not_found", err)
		}
	})
}

// The operator's commands (workshop admin day-close) keep their old
// behaviour: a finish needs no decisions, and with no close under way it
// records today.
func TestDayCloseOperatorFinish(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		if _, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, Today: "2026-11-20"}); err != nil {
			t.Errorf("finish with no close under way: %v", err)
		}
		e.setStepStatus(t, e.createStep(t, e.createJob(t, e.loc.ID).ID, "Open"), workshop.StepInProgress)
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-21"}); err != nil {
			t.Fatal(err)
		}
		d, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, Today: "2026-11-22"})
		if err != nil || d.BusinessDate != "2026-11-21" || d.Summary == nil {
			t.Errorf("operator finish = %+v, %v, want the close of 2026-11-21 with its summary", d, err)
		}
		for _, missing := range []error{
			func() error {
				_, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: "loc_missing"})
				return err
			}(),
			func() error {
				_, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: "loc_missing"})
				return err
			}(),
		} {
			wantCode(t, missing, workshop.CodeNotFound)
		}
	})
}

func berlin(t *testing.T) *time.Location {
	t.Helper()
	z, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// Friday's close made on Saturday morning, after Saturday's work began
// (issue 43): the close concerns Friday only. What began on Saturday (a
// step started at 05:13, a clock-in, an arrival) is neither on Friday's
// checklist nor in its summary; the summary counts a shift left open up
// to the closing time the close offers, not up to Saturday morning; the
// steps Friday completed, the close's among them, and not one completed
// on Saturday; and the items carried over, as they are decided.
func TestDayCloseOfOneDate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		zone := berlin(t)
		fri := func(hh, mm int) time.Time { return time.Date(2026, 11, 20, hh, mm, 0, 0, zone) }
		sat := func(hh, mm int) time.Time { return time.Date(2026, 11, 21, hh, mm, 0, 0, zone) }
		promised := func(at time.Time) func(*workshop.Job) {
			return func(j *workshop.Job) { j.PromiseTime = &workshop.OffsetTime{Time: at} }
		}
		clockIn := func(tech workshop.Technician, at time.Time) {
			t.Helper()
			if _, err := e.st.ClockIn(ctx, e.v, tech.ID, at); err != nil {
				t.Fatal(err)
			}
		}
		startAt := func(st workshop.Step, at time.Time) workshop.Step {
			t.Helper()
			e.setClock(at)
			return e.setStepStatus(t, st, workshop.StepInProgress)
		}

		// Friday
		e.setClock(fri(7, 55))
		left, gone, early := e.technician(t, e.loc.ID, 3), e.technician(t, e.loc.ID, 3), e.technician(t, e.loc.ID, 3)
		clockIn(left, fri(8, 0)) // never clocked out
		clockIn(gone, fri(8, 0))
		if _, err := e.st.ClockOut(ctx, e.v, gone.ID, fri(16, 0)); err != nil {
			t.Fatal(err)
		}
		working := e.createJob(t, e.loc.ID, withArrival(fri(8, 0)), promised(fri(17, 0)))
		open := startAt(e.createStep(t, working.ID, "Brakes"), fri(9, 0))
		done := e.createJob(t, e.loc.ID, withArrival(fri(8, 0)), promised(sat(12, 0)))
		e.setClock(fri(11, 0))
		e.setStepStatus(t, startAt(e.createStep(t, done.ID, "Oil"), fri(10, 0)), workshop.StepCompleted)
		overnight := startAt(e.createStep(t, done.ID, "Tyres"), fri(14, 0))
		noShow := e.createJob(t, e.loc.ID, promised(fri(10, 0)))
		e.createJob(t, e.loc.ID, promised(sat(10, 0))) // Saturday's booking
		lateArrival := e.createJob(t, e.loc.ID, promised(fri(16, 0)))

		// Saturday morning: work begins before Friday is closed.
		e.setClock(sat(5, 10))
		if _, err := e.st.PatchJob(ctx, e.v, lateArrival.ID, store.JobPatch{UpdatedAt: lateArrival.UpdatedAt,
			ArrivalTime: refOf(&workshop.OffsetTime{Time: sat(5, 10)})}, e.now()); err != nil {
			t.Fatal(err)
		}
		clockIn(early, sat(5, 13))
		startAt(e.createStep(t, lateArrival.ID, "Saturday's step"), sat(5, 13))
		e.setClock(sat(6, 0))
		e.setStepStatus(t, overnight, workshop.StepCompleted) // finished on Saturday: Saturday's

		e.setClock(sat(7, 45))
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20", By: e.user.ID}); err != nil {
			t.Fatal(err)
		}
		view := func() store.DayCloseView {
			t.Helper()
			v, err := e.st.DayCloseView(ctx, e.org.ID, e.loc.ID)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		type item struct {
			kind workshop.CloseItemKind
			id   string
		}
		items := func(v store.DayCloseView) []item {
			var got []item
			for _, it := range v.Items {
				got = append(got, item{it.Kind, it.ID})
			}
			return got
		}
		v := view()
		want := []item{{workshop.CloseStepInProgress, open.ID}, {workshop.CloseClockedIn, left.ID},
			{workshop.CloseBookingMissed, noShow.ID}, {workshop.ClosePromiseMissed, working.ID}}
		if got := items(v); !slices.Equal(got, want) {
			t.Errorf("Friday's checklist on Saturday morning = %v, want %v (nothing begun on Saturday)", got, want)
		}
		if got, want := v.Scope.EndOf(open.StartedAt.Time()), fri(17, 30); !got.Equal(want) {
			t.Errorf("the end offered for Brakes = %v, want Friday's closing time %v", got, want)
		}
		// 08:00-17:30 of the shift left open and 08:00-16:00 of the other;
		// Oil completed on Friday, Tyres on Saturday is not Friday's.
		wantSoFar := workshop.DaySummary{StepsCompleted: 1, MinutesEstimated: 30, MinutesClocked: 570 + 480}
		if v.SoFar != wantSoFar {
			t.Errorf("Friday so far = %+v, want %+v", v.SoFar, wantSoFar)
		}

		if err := e.st.CarryOver(ctx, e.org.ID, e.loc.ID, workshop.CloseBookingMissed, noShow.ID, e.user.ID); err != nil {
			t.Fatal(err)
		}
		wantSoFar.CarriedOver = 1
		if got := view().SoFar; got != wantSoFar {
			t.Errorf("Friday so far, a booking carried over = %+v, want %+v", got, wantSoFar)
		}

		closing := store.Visibility{OrgID: e.org.ID, ClosingDay: true}
		if _, err := e.st.PatchStep(ctx, closing, working.ID, open.ID, store.StepPatch{UpdatedAt: open.UpdatedAt,
			Status: refOf(workshop.StepCompleted), ActualEnd: refOf(workshop.MicrosOf(fri(17, 30)))}, e.now()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.ClockOut(ctx, e.v, left.ID, fri(17, 30)); err != nil {
			t.Fatal(err)
		}
		closed, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, By: e.user.ID, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		wantSum := workshop.DaySummary{StepsCompleted: 2, MinutesEstimated: 60, MinutesClocked: 570 + 480, CarriedOver: 1}
		if closed.Summary == nil || *closed.Summary != wantSum {
			t.Errorf("Friday's summary = %+v, want %+v", closed.Summary, wantSum)
		}
	})
}
