package store_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// tableColumns lists a table's columns as the database has them.
func tableColumns(t *testing.T, db storetest.Database, table string) []string {
	t.Helper()
	rows, err := storetest.RawDB(t, db.URL).QueryContext(t.Context(), "SELECT * FROM "+table+" LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) == 0 {
		t.Fatalf("table %s has no columns", table)
	}
	return cols
}

// TestEventRowsHaveEveryColumn: an event's data is the row as stored, with
// every column of its table by its snake_case name, so that a column added
// to a table must be added to the event row too.
func TestEventRowsHaveEveryColumn(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		var jobCols []string
		for _, c := range tableColumns(t, db, "jobs") {
			if c != "promise_time_us" { // the integer copy of promise_time, for queries
				jobCols = append(jobCols, c)
			}
		}
		slices.Sort(jobCols)
		stepCols := tableColumns(t, db, "steps")
		slices.Sort(stepCols)
		wantRow := func(ev store.Event, cols []string) map[string]any {
			t.Helper()
			data := eventData(t, ev)
			if got := slices.Sorted(maps.Keys(data)); !slices.Equal(got, cols) {
				t.Errorf("%s data keys = %v, want the table's columns %v", ev.Name, got, cols)
			}
			if ev.OrgID != e.org.ID || ev.LocationID != e.loc.ID || !strings.HasPrefix(ev.ID, workshop.PrefixEvent) {
				t.Errorf("%s: id %s org %s location %s, want evt_..., %s, %s", ev.Name, ev.ID, ev.OrgID, ev.LocationID, e.org.ID, e.loc.ID)
			}
			return data
		}

		promise := workshop.OffsetTime{Time: time.Date(2026, 11, 22, 16, 0, 0, 0, time.FixedZone("", 3600))}
		arrival := workshop.OffsetTime{Time: time.Date(2026, 11, 21, 9, 0, 0, 0, time.FixedZone("", 3600))}
		in := createIntegration(t, e.st, e.org.ID, e.now())
		j := e.createJob(t, e.loc.ID, withExternalKey("dms-1"), withNumber("RO-2026-0420"), func(j *workshop.Job) {
			j.IntegrationID, j.VehiclePlate, j.VehicleMake, j.VehicleModel = in.ID, refOf("B-AB 1234"), refOf("VW"), refOf("Golf")
			j.PromiseTime, j.ArrivalTime, j.InsuranceClaim, j.Priority, j.Source = &promise, &arrival, refOf("CLM-9"), "high", "dms"
		})
		evs := e.wantEvents(t, "create", workshop.EventJobCreated)
		if len(evs) == 1 {
			data := wantRow(evs[0], jobCols)
			for col, want := range map[string]any{
				"id": j.ID, "org_id": e.org.ID, "location_id": e.loc.ID, "integration_id": in.ID, "external_key": "dms-1",
				"job_number": "RO-2026-0420", "vehicle_plate": "B-AB 1234", "vehicle_make": "VW", "vehicle_model": "Golf",
				"promise_time": "2026-11-22T16:00:00+01:00", "priority": "high", "source": "dms",
				"arrival_time": "2026-11-21T09:00:00+01:00", "insurance_claim": "CLM-9", "status": "arrived",
				"delivered_at": nil, "cancelled_at": nil, "cancel_reason_tags": nil,
				"created_at": j.CreatedAt.String(), "updated_at": j.UpdatedAt.String(),
			} {
				if got := data[col]; got != want {
					t.Errorf("job.created %s = %#v, want %#v", col, got, want)
				}
			}
			if evs[0].OccurredAt != j.CreatedAt {
				t.Errorf("job.created occurredAt = %s, want %s", evs[0].OccurredAt, j.CreatedAt)
			}
		}

		st := e.createStep(t, j.ID, "Brakes")
		evs = e.wantEvents(t, "step create", workshop.EventStepCreated)
		if len(evs) == 1 {
			data := wantRow(evs[0], stepCols)
			if data["id"] != st.ID || data["job_id"] != j.ID || data["label"] != "Brakes" || data["status"] != "pending" {
				t.Errorf("step.created data = %v, want the step %s of job %s", data, st.ID, j.ID)
			}
		}
		st = e.setStepStatus(t, st, workshop.StepInProgress)
		for _, ev := range e.wantEvents(t, "step start", workshop.EventStepUpdated, workshop.EventJobUpdated) {
			if ev.Name == workshop.EventStepUpdated {
				wantRow(ev, stepCols)
			} else {
				wantRow(ev, jobCols)
			}
		}
		e.setStepStatus(t, st, workshop.StepCompleted)
		for _, ev := range e.wantEvents(t, "step complete", workshop.EventStepCompleted, workshop.EventJobUpdated) {
			if ev.Name == workshop.EventStepCompleted {
				if data := wantRow(ev, stepCols); data["completed_at"] == nil || data["started_at"] == nil {
					t.Errorf("step.completed started_at %v completed_at %v, want both set", data["started_at"], data["completed_at"])
				}
			} else {
				wantRow(ev, jobCols)
			}
		}
		if _, err := e.st.CancelJob(ctx, e.v, j.ID, nil, e.now()); err != nil {
			t.Fatal(err)
		}
		for _, ev := range e.wantEvents(t, "cancel", workshop.EventJobCancelled) {
			if data := wantRow(ev, jobCols); data["cancelled_at"] == nil || data["status"] != "cancelled" {
				t.Errorf("job.cancelled status %v cancelled_at %v, want cancelled and set", data["status"], data["cancelled_at"])
			}
		}
	})
}
