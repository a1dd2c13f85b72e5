package store_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A correction changes the record's times (in the location's zone, the
// work date following the clock-in), keeps who changed what in its
// history in the same transaction, and refuses a stale version with
// nothing written. Closing an open record is its clock-out.
func TestCorrectAttendance(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		loc := e.location(t, "Berlin", "Europe/Berlin")
		tech := e.technician(t, loc.ID, 2)
		ctx := t.Context()
		e.setClock(time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC))
		first, err := e.st.ClockIn(ctx, e.v, tech.ID, time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatalf("ClockIn: %v", err)
		}
		if first, err = e.st.ClockOut(ctx, e.v, tech.ID, time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("ClockOut: %v", err)
		}
		open, err := e.st.ClockIn(ctx, e.v, tech.ID, time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatalf("ClockIn: %v", err)
		}
		e.events(t) // the clock-in and clock-out so far
		e.tick()

		ot := func(utc string) workshop.OffsetTime {
			v, err := time.Parse(time.RFC3339, utc)
			if err != nil {
				t.Fatal(err)
			}
			return workshop.OffsetTime{Time: v}
		}
		out := ot("2026-11-24T11:30:00Z")
		got, err := e.st.CorrectAttendance(ctx, e.v, first.ID, store.AttendanceEdit{By: e.user, UpdatedAt: first.UpdatedAt,
			ClockIn: ot("2026-11-23T22:30:00Z"), ClockOut: &out})
		if err != nil {
			t.Fatalf("CorrectAttendance: %v", err)
		}
		if got.ClockIn.String() != "2026-11-23T23:30:00+01:00" || got.ClockOut.String() != "2026-11-24T12:30:00+01:00" ||
			got.WorkDate != "2026-11-23" || got.UpdatedAt <= first.UpdatedAt {
			t.Errorf("corrected to %s–%s on %s at %v; want 23:30 to 12:30 Berlin time on 2026-11-23, a later updatedAt",
				got.ClockIn, got.ClockOut, got.WorkDate, got.UpdatedAt)
		}
		e.wantEvents(t, "a correction of a closed record")

		_, err = e.st.CorrectAttendance(ctx, e.v, first.ID, store.AttendanceEdit{By: e.user, UpdatedAt: first.UpdatedAt,
			ClockIn: ot("2026-11-24T06:00:00Z"), ClockOut: &out})
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		_, err = e.st.CorrectAttendance(ctx, e.v, first.ID, store.AttendanceEdit{By: e.user, UpdatedAt: got.UpdatedAt,
			ClockIn: ot("2026-11-24T06:00:00Z"), ClockOut: refOf(ot("2026-11-24T12:30:00Z"))})
		wantInvalid(t, err, "clockOut") // over the open record from 12:00
		again, err := e.st.AttendanceRecord(ctx, e.v, first.ID)
		if err != nil || again.UpdatedAt != got.UpdatedAt || !again.ClockIn.Equal(got.ClockIn.Time) {
			t.Errorf("after refused corrections the record is %+v (%v), want it as corrected", again, err)
		}

		e.tick()
		closed, err := e.st.CorrectAttendance(ctx, e.v, open.ID, store.AttendanceEdit{By: e.user, UpdatedAt: open.UpdatedAt,
			ClockIn: open.ClockIn, ClockOut: refOf(ot("2026-11-24T16:00:00Z"))})
		if err != nil {
			t.Fatalf("closing the open record: %v", err)
		}
		evs := e.wantEvents(t, "closing an open record", workshop.EventTechClockedOut)
		if len(evs) == 1 && eventData(t, evs[0])["clock_out"] != "2026-11-24T17:00:00+01:00" {
			t.Errorf("the clock-out event has %v", eventData(t, evs[0]))
		}
		if tec, _ := e.st.Technician(ctx, e.v, tech.ID); tec.ClockedIn {
			t.Errorf("the technician is still clocked in after the record was closed")
		}

		history, err := e.st.AttendanceCorrections(ctx, e.v, first.ID)
		if err != nil {
			t.Fatalf("AttendanceCorrections: %v", err)
		}
		if len(history) != 1 {
			t.Fatalf("history of %d corrections, want 1: %+v", len(history), history)
		}
		h := history[0]
		if h.UserID != e.user.ID || h.Email != e.user.Email || h.At != got.UpdatedAt || h.OldIn.String() != first.ClockIn.String() ||
			h.OldOut.String() != first.ClockOut.String() || h.NewIn.String() != got.ClockIn.String() || h.NewOut.String() != got.ClockOut.String() {
			t.Errorf("history %+v; want by %s at %v from %s–%s to %s–%s", h, e.user.Email, got.UpdatedAt, first.ClockIn, first.ClockOut,
				got.ClockIn, got.ClockOut)
		}
		if h, _ := e.st.AttendanceCorrections(ctx, e.v, closed.ID); len(h) != 1 || h[0].OldOut != nil {
			t.Errorf("history of the closed record %+v, want one correction from open", h)
		}

		other := store.Visibility{OrgID: createOrg(t, e.st, workshop.PlanPro).ID}
		_, err = e.st.CorrectAttendance(ctx, other, first.ID, store.AttendanceEdit{By: e.user, UpdatedAt: got.UpdatedAt, ClockIn: got.ClockIn, ClockOut: got.ClockOut})
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.AttendanceCorrections(ctx, other, first.ID)
		wantCode(t, err, workshop.CodeNotFound)
	})
}
