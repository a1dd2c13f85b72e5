package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestPatchJob(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID)
		e.events(t)

		// A stale updatedAt applies nothing and names the current one.
		_, err := e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt - 1, VehiclePlate: refOf(refOf("B-X 1"))}, e.now())
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		var we *workshop.Error
		if errors.As(err, &we) && (we.CurrentUpdatedAt == nil || *we.CurrentUpdatedAt != j.UpdatedAt) {
			t.Errorf("stale PatchJob: CurrentUpdatedAt = %v, want %s", we.CurrentUpdatedAt, j.UpdatedAt)
		}
		if got := e.job(t, j.ID); !sameJob(got, j) {
			t.Errorf("job after a stale PATCH = %+v, want unchanged %+v", got, j)
		}
		e.wantEvents(t, "stale patch")

		// A patch that changes nothing keeps updatedAt and records nothing.
		e.tick()
		var noPlate *string
		got, err := e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, JobNumber: &j.JobNumber,
			Priority: refOf("normal"), Source: refOf("other"), VehiclePlate: &noPlate}, e.now())
		if err != nil || got.UpdatedAt != j.UpdatedAt {
			t.Errorf("no-op PatchJob = updatedAt %s, %v, want %s kept", got.UpdatedAt, err, j.UpdatedAt)
		}
		e.wantEvents(t, "no-op patch")

		// A change gets a strictly later updatedAt, even when the clock has
		// not moved on (or went back), and job.updated.
		e.setClock(j.UpdatedAt.Time().Add(-time.Second))
		got, err = e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, VehiclePlate: refOf(refOf("B-X 1"))}, e.now())
		if err != nil || got.UpdatedAt <= j.UpdatedAt || got.VehiclePlate == nil || *got.VehiclePlate != "B-X 1" {
			t.Fatalf("PatchJob = plate %v updatedAt %s, %v, want B-X 1 and later than %s", got.VehiclePlate, got.UpdatedAt, err, j.UpdatedAt)
		}
		if evs := e.wantEvents(t, "plate change", workshop.EventJobUpdated); len(evs) == 1 {
			data := eventData(t, evs[0])
			if data["vehicle_plate"] != "B-X 1" || data["updated_at"] != got.UpdatedAt.String() {
				t.Errorf("job.updated plate %v updated_at %v, want B-X 1 and %s", data["vehicle_plate"], data["updated_at"], got.UpdatedAt)
			}
		}
		if stored := e.job(t, j.ID); !sameJob(stored, got) {
			t.Errorf("stored job = %+v, want the returned %+v", stored, got)
		}
		j = got

		// The arrival moves booked -> arrived and back.
		e.setClock(t0.Add(time.Minute))
		arrival := &workshop.OffsetTime{Time: time.Date(2026, 11, 21, 11, 0, 0, 0, time.FixedZone("", 3600))}
		got, err = e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, ArrivalTime: &arrival}, e.now())
		if err != nil || got.Status != workshop.JobArrived || got.ArrivalTime == nil || got.ArrivalTime.String() != "2026-11-21T11:00:00+01:00" {
			t.Fatalf("PatchJob(arrival) = status %s arrival %v, %v, want arrived at 2026-11-21T11:00:00+01:00", got.Status, got.ArrivalTime, err)
		}
		if got.UpdatedAt != e.now() {
			t.Errorf("updatedAt = %s, want the clock's %s", got.UpdatedAt, e.now())
		}
		if evs := e.wantEvents(t, "arrival set", workshop.EventJobUpdated); len(evs) == 1 {
			if data := eventData(t, evs[0]); data["status"] != "arrived" || data["arrival_time"] != "2026-11-21T11:00:00+01:00" {
				t.Errorf("job.updated status %v arrival_time %v, want arrived 2026-11-21T11:00:00+01:00", data["status"], data["arrival_time"])
			}
		}
		var none *workshop.OffsetTime
		e.tick()
		got, err = e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: got.UpdatedAt, ArrivalTime: &none}, e.now())
		if err != nil || got.Status != workshop.JobBooked || got.ArrivalTime != nil {
			t.Fatalf("PatchJob(arrival null) = status %s arrival %v, %v, want booked without arrival", got.Status, got.ArrivalTime, err)
		}
		if evs := e.wantEvents(t, "arrival cleared", workshop.EventJobUpdated); len(evs) == 1 {
			if data := eventData(t, evs[0]); data["status"] != "booked" || data["arrival_time"] != nil {
				t.Errorf("job.updated status %v arrival_time %v, want booked null", data["status"], data["arrival_time"])
			}
		}
		j = got

		// jobNumber: a taken one is refused, a free one is taken.
		other := e.createJob(t, e.loc.ID)
		e.events(t)
		_, err = e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, JobNumber: &other.JobNumber}, e.now())
		wantFieldCode(t, err, "jobNumber", "taken")
		e.wantEvents(t, "taken number")
		got, err = e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, JobNumber: refOf("RO-SPECIAL")}, e.now())
		if err != nil || got.JobNumber != "RO-SPECIAL" {
			t.Errorf("PatchJob(jobNumber) = %q, %v, want RO-SPECIAL", got.JobNumber, err)
		}

		// Jobs the caller does not see are not found.
		_, err = e.st.PatchJob(ctx, e.v, "job_missing", store.JobPatch{UpdatedAt: j.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.PatchJob(ctx, store.Visibility{OrgID: "org_other"}, j.ID, store.JobPatch{UpdatedAt: got.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.PatchJob(ctx, store.Visibility{OrgID: e.org.ID, LocationID: "loc_other"}, j.ID, store.JobPatch{UpdatedAt: got.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestDeliverAndCancel(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		if _, err := e.st.SetCancelTags(ctx, e.loc.ID, []workshop.CancelTag{{Tag: "no_show", Label: "No show"},
			{Tag: "customer_declined", Label: "Customer declined"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.SetCancelTags(ctx, other.ID, []workshop.CancelTag{{Tag: "damaged", Label: "Damaged"}}); err != nil {
			t.Fatal(err)
		}

		// Deliver: once, then the same answer.
		a := e.createJob(t, e.loc.ID, withArrival(t0))
		step := e.createStep(t, a.ID, "Brakes")
		step = e.setStepStatus(t, step, workshop.StepInProgress)
		e.events(t)
		e.tick()
		d1, err := e.st.DeliverJob(ctx, e.v, a.ID, e.now())
		if err != nil || d1.Status != workshop.JobDelivered || d1.DeliveredAt == nil || *d1.DeliveredAt != d1.UpdatedAt || d1.UpdatedAt != e.now() {
			t.Fatalf("DeliverJob = %+v, %v, want delivered at %s", d1, err, e.now())
		}
		if evs := e.wantEvents(t, "deliver", workshop.EventJobDelivered); len(evs) == 1 {
			if data := eventData(t, evs[0]); data["status"] != "delivered" || data["delivered_at"] != d1.DeliveredAt.String() {
				t.Errorf("job.delivered status %v delivered_at %v, want delivered %s", data["status"], data["delivered_at"], d1.DeliveredAt)
			}
		}
		e.tick()
		d2, err := e.st.DeliverJob(ctx, e.v, a.ID, e.now())
		if err != nil || !sameJob(d2, d1) {
			t.Errorf("DeliverJob again = %+v, %v, want unchanged %+v", d2, err, d1)
		}
		e.wantEvents(t, "deliver again")

		// A delivered job is final.
		_, err = e.st.CancelJob(ctx, e.v, a.ID, []string{"no_show"}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)
		_, err = e.st.PatchJob(ctx, e.v, a.ID, store.JobPatch{UpdatedAt: d1.UpdatedAt, VehiclePlate: refOf(refOf("X"))}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)
		_, err = e.st.CreateStep(ctx, e.v, e.newStep(a.ID, "Late"))
		wantCode(t, err, workshop.CodeInvalidTransition)
		_, err = e.st.PatchStep(ctx, e.v, a.ID, step.ID, store.StepPatch{UpdatedAt: step.UpdatedAt, Status: refOf(workshop.StepCompleted)}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)
		e.wantEvents(t, "writes on a delivered job")
		if got := e.job(t, a.ID); !sameJob(got, d1) || len(got.Steps) != 1 || got.Steps[0].Status != workshop.StepInProgress {
			t.Errorf("delivered job after refused writes = %+v, want unchanged", got)
		}

		// Cancel: unknown tags are named and change nothing.
		b := e.createJob(t, e.loc.ID)
		e.events(t)
		for _, tags := range [][]string{{"no_show", "bogus_tag"}, {"damaged"}} {
			_, err = e.st.CancelJob(ctx, e.v, b.ID, tags, e.now())
			wantFieldCode(t, err, "reasonTags", "unknown_tag")
			bad := tags[len(tags)-1]
			if err == nil || !strings.Contains(err.Error(), bad) {
				t.Errorf("CancelJob(%v) = %v, want the detail to name %q", tags, err, bad)
			}
		}
		if got := e.job(t, b.ID); !sameJob(got, b) {
			t.Errorf("job after refused cancels = %+v, want unchanged %+v", got, b)
		}
		e.wantEvents(t, "refused cancels")
		e.tick()
		c1, err := e.st.CancelJob(ctx, e.v, b.ID, []string{"customer_declined", "no_show"}, e.now())
		if err != nil || c1.Status != workshop.JobCancelled || c1.CancelledAt == nil || !slices.Equal(c1.CancelReasons, []string{"customer_declined", "no_show"}) {
			t.Fatalf("CancelJob = %+v, %v, want cancelled with [customer_declined no_show]", c1, err)
		}
		if evs := e.wantEvents(t, "cancel", workshop.EventJobCancelled); len(evs) == 1 {
			data := eventData(t, evs[0])
			if tags, _ := data["cancel_reason_tags"].([]any); len(tags) != 2 || tags[0] != "customer_declined" || data["cancelled_at"] != c1.CancelledAt.String() {
				t.Errorf("job.cancelled tags %v cancelled_at %v, want [customer_declined no_show] %s", data["cancel_reason_tags"], data["cancelled_at"], c1.CancelledAt)
			}
		}
		if got := e.job(t, b.ID); !sameJob(got, c1) {
			t.Errorf("stored cancelled job = %+v, want %+v", got, c1)
		}
		// Cancelling again answers the cancelled job as it is.
		e.tick()
		c2, err := e.st.CancelJob(ctx, e.v, b.ID, []string{"no_show"}, e.now())
		if err != nil || !sameJob(c2, c1) {
			t.Errorf("CancelJob again = %+v, %v, want unchanged %+v", c2, err, c1)
		}
		_, err = e.st.DeliverJob(ctx, e.v, b.ID, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)
		e.wantEvents(t, "after cancel")

		_, err = e.st.DeliverJob(ctx, e.v, "job_missing", e.now())
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.CancelJob(ctx, store.Visibility{OrgID: e.org.ID, LocationID: other.ID}, b.ID, []string{"no_show"}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
	})
}
