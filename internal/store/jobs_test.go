package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// jobEnv is an env for the job and step tests: the owner's org-wide view
// and a mark of the outbox events already looked at.
type jobEnv struct {
	env
	db   storetest.Database
	v    store.Visibility
	seen int64
}

func newJobEnv(t *testing.T, db storetest.Database) *jobEnv {
	t.Helper()
	e := newEnv(t, db)
	return &jobEnv{env: e, db: db, v: store.Visibility{OrgID: e.org.ID}}
}

func refOf[T any](v T) *T { return &v }

func (e *jobEnv) now() workshop.Micros { return workshop.MicrosOf(e.clk.Now()) }

// tick moves the clock on, so that what is made next has a later createdAt.
func (e *jobEnv) tick() { e.clk.Advance(time.Millisecond) }

// setClock puts the clock at an instant.
func (e *jobEnv) setClock(at time.Time) { e.clk.Advance(at.Sub(e.clk.Now())) }

func (e *jobEnv) location(t *testing.T, name, tz string) workshop.Location {
	t.Helper()
	now := e.now()
	l, err := e.st.CreateLocation(t.Context(), workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: e.org.ID,
		Name: name, Timezone: tz, CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now}, workshop.DefaultSettings())
	if err != nil {
		t.Fatalf("CreateLocation(%s): %v", tz, err)
	}
	return l
}

// newJob is a job of a location made now (no number: one is assigned; no
// arrival: booked), changed by opts.
func (e *jobEnv) newJob(locationID string, opts ...func(*workshop.Job)) workshop.Job {
	now := e.now()
	j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: e.org.ID, LocationID: locationID, Priority: "normal",
		Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}
	for _, o := range opts {
		o(&j)
	}
	return j
}

func withNumber(n string) func(*workshop.Job) { return func(j *workshop.Job) { j.JobNumber = n } }

func withExternalKey(k string) func(*workshop.Job) {
	return func(j *workshop.Job) { j.ExternalKey = &k }
}

func withArrival(at time.Time) func(*workshop.Job) {
	return func(j *workshop.Job) { j.ArrivalTime = &workshop.OffsetTime{Time: at} }
}

func (e *jobEnv) createJob(t *testing.T, locationID string, opts ...func(*workshop.Job)) workshop.Job {
	t.Helper()
	res, err := e.st.CreateJob(t.Context(), e.newJob(locationID, opts...), false)
	if err != nil || !res.Created {
		t.Fatalf("CreateJob = created %v, %v, want a new job", res.Created, err)
	}
	return res.Job
}

func (e *jobEnv) newStep(jobID, label string) workshop.Step {
	now := e.now()
	return workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: jobID, Label: label, SchedulingMode: "sequential",
		EstimatedDuration: 30, TechIDs: []string{}, Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now}
}

// createStep adds a pending step, a tick after the last one.
func (e *jobEnv) createStep(t *testing.T, jobID, label string) workshop.Step {
	t.Helper()
	e.tick()
	st, err := e.st.CreateStep(t.Context(), e.v, e.newStep(jobID, label))
	if err != nil {
		t.Fatalf("CreateStep(%s): %v", label, err)
	}
	return st
}

func (e *jobEnv) patchStep(t *testing.T, st workshop.Step, p store.StepPatch) workshop.Step {
	t.Helper()
	p.UpdatedAt = st.UpdatedAt
	got, err := e.st.PatchStep(t.Context(), e.v, st.JobID, st.ID, p, e.now())
	if err != nil {
		t.Fatalf("PatchStep(%s, %+v): %v", st.Label, p, err)
	}
	return got
}

func (e *jobEnv) setStepStatus(t *testing.T, st workshop.Step, status string) workshop.Step {
	t.Helper()
	return e.patchStep(t, st, store.StepPatch{Status: &status})
}

func (e *jobEnv) job(t *testing.T, id string) workshop.Job {
	t.Helper()
	j, err := e.st.Job(t.Context(), e.v, id)
	if err != nil {
		t.Fatalf("Job(%s): %v", id, err)
	}
	return j
}

func (e *jobEnv) technician(t *testing.T, locationID string, wipLimit int) workshop.Technician {
	t.Helper()
	now := e.now()
	tec, err := e.st.CreateTechnician(t.Context(), workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: e.org.ID,
		LocationID: locationID, Name: "Jonas", Skills: []string{}, WIPLimit: wipLimit, Status: "available", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatalf("CreateTechnician: %v", err)
	}
	return tec
}

func (e *jobEnv) bay(t *testing.T, locationID string) workshop.Bay {
	t.Helper()
	now := e.now()
	b, err := e.st.CreateBay(t.Context(), workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: e.org.ID, LocationID: locationID,
		Name: "Bay", Equipment: []string{}, Services: []string{}, Status: "available", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatalf("CreateBay: %v", err)
	}
	return b
}

// exec runs a statement on the database directly, ? placeholders for both.
func (e *jobEnv) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if e.db.Name == "postgres" {
		for i := range args {
			query = strings.Replace(query, "?", fmt.Sprintf("$%d", i+1), 1)
		}
	}
	if _, err := storetest.RawDB(t, e.db.URL).ExecContext(t.Context(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// events are the outbox events recorded since the last call, oldest first.
func (e *jobEnv) events(t *testing.T) []store.Event {
	t.Helper()
	list, err := e.st.EventsAfter(t.Context(), e.seen, 10000)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	if len(list) > 0 {
		e.seen = list[len(list)-1].Seq
	}
	return list
}

func eventNames(list []store.Event) []string {
	names := []string{}
	for _, ev := range list {
		names = append(names, ev.Name)
	}
	return names
}

// wantEvents fails unless the events since the last look are the names, in
// order; it returns them.
func (e *jobEnv) wantEvents(t *testing.T, step string, names ...string) []store.Event {
	t.Helper()
	list := e.events(t)
	if got := eventNames(list); !slices.Equal(got, names) {
		t.Errorf("%s: events = %v, want %v", step, got, names)
	}
	return list
}

func eventData(t *testing.T, ev store.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(ev.Data, &m); err != nil {
		t.Fatalf("event %s data %s: %v", ev.Name, ev.Data, err)
	}
	return m
}

// wantFieldCode fails unless err is validation_failed on field with code
// among its errors[].
func wantFieldCode(t *testing.T, err error, field, code string) {
	t.Helper()
	wantInvalid(t, err, field)
	var e *workshop.Error
	if !errors.As(err, &e) {
		return
	}
	for _, f := range e.Fields {
		if f.Field == field && f.Code == code {
			return
		}
	}
	t.Errorf("errors[] = %+v, want an entry with field %s and code %s", e.Fields, field, code)
}

// sameJob compares jobs without their steps.
func sameJob(a, b workshop.Job) bool {
	a.Steps, b.Steps = nil, nil
	return reflect.DeepEqual(a, b)
}

func TestCreateJobAssignsNumbers(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")

		// RO-2026-0002 is taken explicitly first: the sequence skips it.
		if j := e.createJob(t, e.loc.ID, withNumber("RO-2026-0002")); j.JobNumber != "RO-2026-0002" {
			t.Errorf("explicit jobNumber = %q, want RO-2026-0002", j.JobNumber)
		}
		for _, want := range []string{"RO-2026-0001", "RO-2026-0003", "RO-2026-0004"} {
			e.tick()
			j := e.createJob(t, e.loc.ID)
			if j.JobNumber != want {
				t.Errorf("assigned jobNumber = %q, want %q", j.JobNumber, want)
			}
			if got := e.job(t, j.ID); got.JobNumber != want {
				t.Errorf("stored jobNumber = %q, want %q", got.JobNumber, want)
			}
		}
		// Each location has its own sequence.
		if j := e.createJob(t, other.ID); j.JobNumber != "RO-2026-0001" {
			t.Errorf("first number of another location = %q, want RO-2026-0001", j.JobNumber)
		}
		e.events(t)

		// A number taken in the location is refused, and records nothing.
		for _, n := range []string{"RO-2026-0002", "RO-2026-0003"} {
			_, err := e.st.CreateJob(ctx, e.newJob(e.loc.ID, withNumber(n)), false)
			wantFieldCode(t, err, "jobNumber", "taken")
		}
		e.wantEvents(t, "refused creates")
		// The same number in another location is fine.
		if j := e.createJob(t, other.ID, withNumber("RO-2026-0003")); j.JobNumber != "RO-2026-0003" {
			t.Errorf("jobNumber in another location = %q, want RO-2026-0003", j.JobNumber)
		}
		// The refused creates did not move the counter; the other location's
		// explicit 0003 is skipped there.
		if j := e.createJob(t, e.loc.ID); j.JobNumber != "RO-2026-0005" {
			t.Errorf("number after refused creates = %q, want RO-2026-0005", j.JobNumber)
		}
		for _, want := range []string{"RO-2026-0002", "RO-2026-0004"} {
			if j := e.createJob(t, other.ID); j.JobNumber != want {
				t.Errorf("other location's number = %q, want %q", j.JobNumber, want)
			}
		}
	})
}

func TestCreateJobNumberYearIsTheLocationsLocalYear(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.setClock(time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC))
		for _, tc := range []struct{ tz, want string }{
			{"Asia/Tokyo", "RO-2027-0001"},          // 2027-01-01 08:30
			{"Europe/Berlin", "RO-2027-0001"},       // 2027-01-01 00:30
			{"Europe/London", "RO-2026-0001"},       // 2026-12-31 23:30
			{"America/Los_Angeles", "RO-2026-0001"}, // 2026-12-31 15:30
		} {
			loc := e.location(t, tc.tz, tc.tz)
			if j := e.createJob(t, loc.ID); j.JobNumber != tc.want {
				t.Errorf("%s at 2026-12-31T23:30Z: jobNumber = %q, want %q", tc.tz, j.JobNumber, tc.want)
			}
		}
		// The stamped arrival of a walk-in carries the same local date.
		tokyo := e.location(t, "Tokyo 2", "Asia/Tokyo")
		res, err := e.st.CreateJob(t.Context(), e.newJob(tokyo.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		if a := res.Job.ArrivalTime; a == nil || a.String() != "2027-01-01T08:30:00+09:00" || res.Job.JobNumber != "RO-2027-0001" {
			t.Errorf("Tokyo walk-in = number %q arrival %v, want RO-2027-0001 arrived 2027-01-01T08:30:00+09:00", res.Job.JobNumber, a)
		}
		// In London the new year starts an hour later, with a new sequence.
		london := e.location(t, "London 2", "Europe/London")
		if j := e.createJob(t, london.ID); j.JobNumber != "RO-2026-0001" {
			t.Errorf("London before midnight = %q, want RO-2026-0001", j.JobNumber)
		}
		if j := e.createJob(t, london.ID); j.JobNumber != "RO-2026-0002" {
			t.Errorf("London before midnight = %q, want RO-2026-0002", j.JobNumber)
		}
		e.clk.Advance(time.Hour)
		if j := e.createJob(t, london.ID); j.JobNumber != "RO-2027-0001" {
			t.Errorf("London after midnight = %q, want RO-2027-0001", j.JobNumber)
		}
	})
}

func TestCreateJobExternalKeyReturnsTheStoredJob(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		first := e.createJob(t, e.loc.ID, withExternalKey("dms-4711"), withNumber("RO-X-1"), func(j *workshop.Job) {
			j.VehiclePlate, j.Priority = refOf("B-AB 1234"), "high"
		})
		taken := e.createJob(t, e.loc.ID)
		e.events(t)

		// The repeat says other things, even invalid ones (a taken number, a
		// stamped arrival): it is ignored entirely.
		e.clk.Advance(time.Hour)
		repeat := e.newJob(e.loc.ID, withExternalKey("dms-4711"), withNumber(taken.JobNumber), func(j *workshop.Job) {
			j.VehiclePlate, j.Priority, j.Source = refOf("HH-XY 9"), "urgent", "dms"
		})
		res, err := e.st.CreateJob(ctx, repeat, true)
		if err != nil || res.Created {
			t.Fatalf("repeated CreateJob = created %v, %v, want the stored job (Created false)", res.Created, err)
		}
		if !sameJob(res.Job, first) {
			t.Errorf("repeated CreateJob returned %+v, want the stored %+v", res.Job, first)
		}
		if res.Job.Steps == nil {
			t.Error("repeated CreateJob: Steps = nil, want the job's steps (an empty list)")
		}
		if got := e.job(t, first.ID); !sameJob(got, first) {
			t.Errorf("stored job after the repeat = %+v, want unchanged %+v", got, first)
		}
		e.wantEvents(t, "repeated create")

		// JobByExternalKey finds it.
		if got, err := e.st.JobByExternalKey(ctx, e.v, "", "dms-4711"); err != nil || got.ID != first.ID {
			t.Errorf("JobByExternalKey = %s, %v, want %s", got.ID, err, first.ID)
		}
		// externalKey is unique per (org, integration): another integration's
		// key is another job.
		in := createIntegration(t, e.st, e.org.ID, e.now())
		res, err = e.st.CreateJob(ctx, e.newJob(e.loc.ID, withExternalKey("dms-4711"), func(j *workshop.Job) { j.IntegrationID = in.ID }), false)
		if err != nil || !res.Created || res.Job.ID == first.ID {
			t.Errorf("CreateJob in another integration = created %v %s, %v, want a new job", res.Created, res.Job.ID, err)
		}
		if got, err := e.st.JobByExternalKey(ctx, e.v, in.ID, "dms-4711"); err != nil || got.ID != res.Job.ID {
			t.Errorf("JobByExternalKey(integration) = %s, %v, want %s", got.ID, err, res.Job.ID)
		}
		// So is another organisation's.
		org2 := createOrg(t, e.st, workshop.PlanPro)
		loc2 := createLocation(t, e.st, org2.ID)
		j2 := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org2.ID, LocationID: loc2.ID, ExternalKey: refOf("dms-4711"),
			Priority: "normal", Source: "other", CreatedAt: e.now(), UpdatedAt: e.now()}
		if res, err := e.st.CreateJob(ctx, j2, false); err != nil || !res.Created {
			t.Errorf("CreateJob in another org = created %v, %v, want a new job", res.Created, err)
		}
		_, err = e.st.JobByExternalKey(ctx, e.v, "", "dms-unknown")
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestCreateJobArrival(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		tokyo := e.location(t, "Tokyo", "Asia/Tokyo")
		newYork := e.location(t, "New York", "America/New_York")
		for _, tc := range []struct {
			name string
			at   time.Time
			loc  workshop.Location
			want string
		}{
			{"Berlin in winter", t0, e.loc, "2026-11-21T11:15:30.123456+01:00"},
			{"Berlin in summer", time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC), e.loc, "2026-07-01T10:00:00+02:00"},
			{"Tokyo", t0, tokyo, "2026-11-21T19:15:30.123456+09:00"},
			{"New York", t0, newYork, "2026-11-21T05:15:30.123456-05:00"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.setClock(tc.at)
				res, err := e.st.CreateJob(ctx, e.newJob(tc.loc.ID), true)
				if err != nil {
					t.Fatal(err)
				}
				a := res.Job.ArrivalTime
				if a == nil || a.String() != tc.want {
					t.Fatalf("stamped arrivalTime = %v, want %s", a, tc.want)
				}
				if res.Job.Status != workshop.JobArrived {
					t.Errorf("status = %s, want arrived", res.Job.Status)
				}
				if got := e.job(t, res.Job.ID).ArrivalTime; got == nil || got.String() != tc.want {
					t.Errorf("stored arrivalTime = %v, want %s", got, tc.want)
				}
				evs := e.events(t)
				if len(evs) != 1 || eventData(t, evs[0])["arrival_time"] != tc.want {
					t.Errorf("job.created events = %d, arrival_time %v, want one with %s", len(evs), evs, tc.want)
				}
			})
		}
		e.setClock(t0)
		// Not stamped, no arrival: a pre-booking.
		if j := e.createJob(t, e.loc.ID); j.ArrivalTime != nil || j.Status != workshop.JobBooked {
			t.Errorf("pre-booking = arrival %v status %s, want none and booked", j.ArrivalTime, j.Status)
		}
		// A sent arrival keeps its own offset.
		sent := time.Date(2026, 11, 21, 4, 0, 0, 0, time.FixedZone("", -5*3600))
		j := e.createJob(t, tokyo.ID, withArrival(sent))
		if got := e.job(t, j.ID); got.ArrivalTime == nil || got.ArrivalTime.String() != "2026-11-21T04:00:00-05:00" || got.Status != workshop.JobArrived {
			t.Errorf("sent arrival = %v status %s, want 2026-11-21T04:00:00-05:00 arrived", got.ArrivalTime, got.Status)
		}
	})
}

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

func TestStepsDriveTheJobStatus(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID, withArrival(t0.Add(-time.Hour)))
		wantStatus := func(step, want string) {
			t.Helper()
			if got := e.job(t, j.ID); got.Status != want {
				t.Errorf("%s: job status = %s, want %s", step, got.Status, want)
			}
		}
		e.events(t)

		e.tick()
		s1 := e.createStep(t, j.ID, "Brakes")
		e.wantEvents(t, "first step", workshop.EventStepCreated)
		wantStatus("first step", workshop.JobArrived)

		_, err := e.st.PatchStep(ctx, e.v, j.ID, s1.ID, store.StepPatch{UpdatedAt: s1.UpdatedAt - 1, Status: refOf(workshop.StepInProgress)}, e.now())
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		var we *workshop.Error
		if errors.As(err, &we) && (we.CurrentUpdatedAt == nil || *we.CurrentUpdatedAt != s1.UpdatedAt) {
			t.Errorf("stale PatchStep: CurrentUpdatedAt = %v, want %s", we.CurrentUpdatedAt, s1.UpdatedAt)
		}
		e.wantEvents(t, "stale step patch")

		// pending -> in_progress: step.updated, and job.updated (arrived -> in_progress).
		before := s1
		s1 = e.setStepStatus(t, s1, workshop.StepInProgress)
		if s1.Status != workshop.StepInProgress || s1.StartedAt == nil || s1.UpdatedAt <= before.UpdatedAt {
			t.Errorf("started step = %+v, want in_progress, startedAt set, later updatedAt", s1)
		}
		e.wantEvents(t, "start", workshop.EventStepUpdated, workshop.EventJobUpdated)
		wantStatus("start", workshop.JobInProgress)

		// The same status again is no change.
		same := e.setStepStatus(t, s1, workshop.StepInProgress)
		if same.UpdatedAt != s1.UpdatedAt {
			t.Errorf("no-op PatchStep: updatedAt = %s, want %s kept", same.UpdatedAt, s1.UpdatedAt)
		}
		e.wantEvents(t, "no-op step patch")

		// A second step while the first is in progress: the job stays in progress.
		e.tick()
		s2 := e.createStep(t, j.ID, "Oil")
		e.wantEvents(t, "second step", workshop.EventStepCreated)
		wantStatus("second step", workshop.JobInProgress)

		// pending -> completed is not a transition.
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: refOf(workshop.StepCompleted)}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)

		s2 = e.setStepStatus(t, s2, workshop.StepInProgress)
		e.wantEvents(t, "second start", workshop.EventStepUpdated)

		// Completing one step of two in progress: step.completed only.
		s1 = e.setStepStatus(t, s1, workshop.StepCompleted)
		if s1.CompletedAt == nil {
			t.Error("completed step: completedAt = nil, want set")
		}
		e.wantEvents(t, "first complete", workshop.EventStepCompleted)
		wantStatus("first complete", workshop.JobInProgress)

		// Completing the last: step.completed and job.updated (ready).
		s2 = e.setStepStatus(t, s2, workshop.StepCompleted)
		if evs := e.wantEvents(t, "last complete", workshop.EventStepCompleted, workshop.EventJobUpdated); len(evs) == 2 {
			if data := eventData(t, evs[1]); data["status"] != workshop.JobReady {
				t.Errorf("job.updated status = %v, want ready", data["status"])
			}
		}
		wantStatus("last complete", workshop.JobReady)

		// A completed step never goes back.
		for _, to := range []string{workshop.StepPending, workshop.StepInProgress} {
			_, err = e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: &to}, e.now())
			wantCode(t, err, workshop.CodeInvalidTransition)
		}
		// in_progress -> pending neither (checked on a fresh step below).
		e.wantEvents(t, "refused transitions")

		// A step added to a ready job makes it waiting.
		e.tick()
		s3 := e.createStep(t, j.ID, "Wash")
		if evs := e.wantEvents(t, "step on a ready job", workshop.EventStepCreated, workshop.EventJobUpdated); len(evs) == 2 {
			if data := eventData(t, evs[1]); data["status"] != workshop.JobWaiting {
				t.Errorf("job.updated status = %v, want waiting", data["status"])
			}
		}
		wantStatus("step on a ready job", workshop.JobWaiting)
		s3 = e.setStepStatus(t, s3, workshop.StepInProgress)
		e.wantEvents(t, "third start", workshop.EventStepUpdated, workshop.EventJobUpdated)
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt, Status: refOf(workshop.StepPending)}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)

		// Other changes: step.updated only.
		s3 = e.patchStep(t, s3, store.StepPatch{Label: refOf("Wash and dry"), EstimatedDuration: refOf(45)})
		e.wantEvents(t, "label change", workshop.EventStepUpdated)

		// The job's steps, in (phase, createdAt) order.
		got := e.job(t, j.ID)
		var ids []string
		for _, st := range got.Steps {
			ids = append(ids, st.ID+":"+st.Status)
		}
		want := []string{s1.ID + ":completed", s2.ID + ":completed", s3.ID + ":in_progress"}
		if !slices.Equal(ids, want) {
			t.Errorf("job steps = %v, want %v", ids, want)
		}
		if got.Steps[2].Label != "Wash and dry" || got.Steps[2].EstimatedDuration != 45 {
			t.Errorf("patched step = %+v, want label Wash and dry, 45 minutes", got.Steps[2])
		}

		// Unknown steps and jobs.
		_, err = e.st.PatchStep(ctx, e.v, j.ID, "stp_missing", store.StepPatch{UpdatedAt: s3.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		other := e.createJob(t, e.loc.ID)
		_, err = e.st.PatchStep(ctx, e.v, other.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.CreateStep(ctx, e.v, e.newStep("job_missing", "x"))
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestStepAssignments(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		tech := e.technician(t, e.loc.ID, 1)
		foreignTech := e.technician(t, other.ID, 2)
		gone := e.technician(t, e.loc.ID, 2)
		if err := e.st.DeleteTechnician(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		bay, foreignBay, maintained := e.bay(t, e.loc.ID), e.bay(t, other.ID), e.bay(t, e.loc.ID)
		e.exec(t, "UPDATE bays SET status = 'maintenance' WHERE id = ?", maintained.ID)

		j := e.createJob(t, e.loc.ID, withArrival(t0))
		s1, s2 := e.createStep(t, j.ID, "Brakes"), e.createStep(t, j.ID, "Oil")
		e.events(t)

		for _, tc := range []struct {
			name, field, code string
			patch             store.StepPatch
		}{
			{"technician of another location", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{tech.ID, foreignTech.ID}}},
			{"unknown technician", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{"tec_missing"}}},
			{"deleted technician", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{gone.ID}}},
			{"bay of another location", "bayId", "invalid", store.StepPatch{BayID: refOf(&foreignBay.ID)}},
			{"unknown bay", "bayId", "invalid", store.StepPatch{BayID: refOf(refOf("bay_missing"))}},
			{"bay in maintenance", "bayId", "bay_in_maintenance", store.StepPatch{BayID: refOf(&maintained.ID)}},
		} {
			tc.patch.UpdatedAt = s1.UpdatedAt
			_, err := e.st.PatchStep(ctx, e.v, j.ID, s1.ID, tc.patch, e.now())
			t.Run(tc.name, func(t *testing.T) { wantFieldCode(t, err, tc.field, tc.code) })
		}
		e.wantEvents(t, "refused assignments")
		if got := e.job(t, j.ID).Steps[0]; got.UpdatedAt != s1.UpdatedAt || len(got.TechIDs) != 0 || got.BayID != nil {
			t.Errorf("step after refused assignments = %+v, want unchanged", got)
		}

		// Assigning the technician (twice in the list: once) and the bay.
		s1 = e.patchStep(t, s1, store.StepPatch{TechIDs: &[]string{tech.ID, tech.ID}, BayID: refOf(&bay.ID)})
		if !slices.Equal(s1.TechIDs, []string{tech.ID}) || s1.BayID == nil || *s1.BayID != bay.ID {
			t.Errorf("assigned step = techs %v bay %v, want [%s] %s", s1.TechIDs, s1.BayID, tech.ID, bay.ID)
		}
		if evs := e.wantEvents(t, "assignment", workshop.EventStepUpdated); len(evs) == 1 {
			data := eventData(t, evs[0])
			if techs, _ := data["tech_ids"].([]any); len(techs) != 1 || techs[0] != tech.ID || data["bay_id"] != bay.ID {
				t.Errorf("step.updated tech_ids %v bay_id %v, want [%s] %s", data["tech_ids"], data["bay_id"], tech.ID, bay.ID)
			}
		}
		// A bay put in maintenance after it was assigned stays assigned
		// through other changes.
		s2 = e.patchStep(t, s2, store.StepPatch{TechIDs: &[]string{tech.ID}})

		// WIP limit 1: the technician's second step cannot start.
		s1 = e.setStepStatus(t, s1, workshop.StepInProgress)
		_, err := e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
		wantFieldCode(t, err, "techIds", "wip_limit_exceeded")
		// Nor can the technician be added to another step in progress.
		s3 := e.createStep(t, j.ID, "Wash")
		s3 = e.setStepStatus(t, s3, workshop.StepInProgress)
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt, TechIDs: &[]string{tech.ID}}, e.now())
		wantFieldCode(t, err, "techIds", "wip_limit_exceeded")
		if got := e.job(t, j.ID).Steps[1]; got.ID != s2.ID || got.Status != workshop.StepPending {
			t.Errorf("second step = %s %s, want %s still pending", got.ID, got.Status, s2.ID)
		}
		// Changing the step that holds the slot is fine.
		s1 = e.patchStep(t, s1, store.StepPatch{Label: refOf("Brakes, front")})
		// Once the first is completed, the second can start.
		e.setStepStatus(t, s1, workshop.StepCompleted)
		if s2 = e.setStepStatus(t, s2, workshop.StepInProgress); s2.Status != workshop.StepInProgress {
			t.Errorf("second step = %s, want in_progress", s2.Status)
		}
		// Unassigning the bay.
		if s1 = e.job(t, j.ID).Steps[0]; s1.BayID == nil {
			t.Fatal("first step lost its bay")
		}
		var noBay *string
		if got := e.patchStep(t, s1, store.StepPatch{BayID: &noBay}); got.BayID != nil {
			t.Errorf("unassigned bay = %v, want nil", *got.BayID)
		}
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

func TestDayCloseBlocksJobAndStepWrites(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		type site struct {
			loc                         workshop.Location
			patched, stepped, dlv, canc workshop.Job
			step                        workshop.Step
		}
		prepare := func(loc workshop.Location) *site {
			if _, err := e.st.SetCancelTags(ctx, loc.ID, []workshop.CancelTag{{Tag: "no_show", Label: "No show"}}); err != nil {
				t.Fatal(err)
			}
			s := &site{loc: loc, patched: e.createJob(t, loc.ID), stepped: e.createJob(t, loc.ID), dlv: e.createJob(t, loc.ID), canc: e.createJob(t, loc.ID)}
			s.step = e.createStep(t, s.stepped.ID, "Brakes")
			return s
		}
		closing, open := prepare(e.loc), prepare(other)
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		e.events(t)

		ops := []struct {
			name string
			do   func(s *site) error
		}{
			{"CreateJob", func(s *site) error {
				_, err := e.st.CreateJob(ctx, e.newJob(s.loc.ID), true)
				return err
			}},
			{"CreateJob with a number", func(s *site) error {
				_, err := e.st.CreateJob(ctx, e.newJob(s.loc.ID, withNumber("RO-OWN-1")), false)
				return err
			}},
			{"PatchJob", func(s *site) error {
				_, err := e.st.PatchJob(ctx, e.v, s.patched.ID, store.JobPatch{UpdatedAt: s.patched.UpdatedAt, VehiclePlate: refOf(refOf("B-1"))}, e.now())
				return err
			}},
			{"CreateStep", func(s *site) error {
				_, err := e.st.CreateStep(ctx, e.v, e.newStep(s.stepped.ID, "Oil"))
				return err
			}},
			{"PatchStep", func(s *site) error {
				_, err := e.st.PatchStep(ctx, e.v, s.stepped.ID, s.step.ID, store.StepPatch{UpdatedAt: s.step.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
				return err
			}},
			{"DeliverJob", func(s *site) error {
				_, err := e.st.DeliverJob(ctx, e.v, s.dlv.ID, e.now())
				return err
			}},
			{"CancelJob", func(s *site) error {
				_, err := e.st.CancelJob(ctx, e.v, s.canc.ID, []string{"no_show"}, e.now())
				return err
			}},
		}
		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				wantCode(t, op.do(closing), workshop.CodeDayCloseInProgress)
				if err := op.do(open); err != nil {
					t.Errorf("%s in another location = %v, want nil", op.name, err)
				}
			})
		}
		for _, ev := range e.events(t) {
			if ev.LocationID == e.loc.ID {
				t.Errorf("event %s recorded in the closing location", ev.Name)
			}
		}
		for _, j := range []workshop.Job{closing.patched, closing.dlv, closing.canc} {
			if got := e.job(t, j.ID); !sameJob(got, j) {
				t.Errorf("job in the closing location = %+v, want unchanged %+v", got, j)
			}
		}
		if got := e.job(t, closing.stepped.ID); len(got.Steps) != 1 || got.Steps[0].Status != workshop.StepPending {
			t.Errorf("steps in the closing location = %+v, want the one pending step", got.Steps)
		}
		// Reads go on.
		if _, err := e.st.Jobs(ctx, store.JobFilter{Visibility: store.Visibility{OrgID: e.org.ID, LocationID: e.loc.ID}}, workshop.PageRequest{Limit: 10}); err != nil {
			t.Errorf("Jobs during the close = %v", err)
		}
		// After the close, writes resume.
		if _, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, Today: "2026-11-21"}); err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if err := op.do(closing); err != nil {
				t.Errorf("%s after the close = %v, want nil", op.name, err)
			}
		}
	})
}

// walkJobs lists every page of a filter, checking each page's size.
func walkJobs(t *testing.T, st *store.Store, f store.JobFilter, limit int, between func()) []workshop.Job {
	t.Helper()
	var all []workshop.Job
	p := workshop.PageRequest{Limit: limit}
	for range 1000 {
		page, err := st.Jobs(t.Context(), f, p)
		if err != nil {
			t.Fatalf("Jobs: %v", err)
		}
		if len(page.Data) > limit {
			t.Fatalf("page of %d rows, want at most %d", len(page.Data), limit)
		}
		all = append(all, page.Data...)
		if page.NextCursor == nil {
			return all
		}
		if between != nil {
			between()
		}
		if p, err = workshop.ParsePageRequest(&limit, *page.NextCursor); err != nil {
			t.Fatalf("nextCursor %q: %v", *page.NextCursor, err)
		}
	}
	t.Fatal("the walk does not end")
	return nil
}

func jobIDs(list []workshop.Job) []string {
	ids := []string{}
	for _, j := range list {
		ids = append(ids, j.ID)
	}
	return ids
}

func TestJobsList(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		in := createIntegration(t, e.st, e.org.ID, e.now())
		// Made in this order; several at one instant, where the id orders them.
		a := e.createJob(t, e.loc.ID)
		e.tick()
		b := e.createJob(t, e.loc.ID, withArrival(t0))
		c := e.createJob(t, other.ID)
		d := e.createJob(t, e.loc.ID, withArrival(t0), withExternalKey("K"))
		x := e.createJob(t, e.loc.ID, withExternalKey("K"), func(j *workshop.Job) { j.IntegrationID = in.ID })
		sameInstant := []workshop.Job{b, c, d, x}
		slices.SortFunc(sameInstant, func(p, q workshop.Job) int { return strings.Compare(p.ID, q.ID) })
		all := append([]workshop.Job{a}, sameInstant...)
		e.tick()
		mark := e.now()
		e.tick()
		if _, err := e.st.PatchJob(ctx, e.v, a.ID, store.JobPatch{UpdatedAt: a.UpdatedAt, VehiclePlate: refOf(refOf("B-1"))}, e.now()); err != nil {
			t.Fatal(err)
		}
		only := func(keep ...workshop.Job) []string {
			var ids []string
			for _, j := range all {
				if slices.ContainsFunc(keep, func(k workshop.Job) bool { return k.ID == j.ID }) {
					ids = append(ids, j.ID)
				}
			}
			return ids
		}
		org := store.Visibility{OrgID: e.org.ID}
		atLoc := store.Visibility{OrgID: e.org.ID, LocationID: e.loc.ID}
		for _, tc := range []struct {
			name string
			f    store.JobFilter
			want []string
		}{
			{"all of the org", store.JobFilter{Visibility: org}, only(all...)},
			{"one location", store.JobFilter{Visibility: atLoc}, only(a, b, d, x)},
			{"the other location", store.JobFilter{Visibility: store.Visibility{OrgID: e.org.ID, LocationID: other.ID}}, only(c)},
			{"booked", store.JobFilter{Visibility: org, Statuses: []string{"booked"}}, only(a, c, x)},
			{"arrived", store.JobFilter{Visibility: org, Statuses: []string{"arrived"}}, only(b, d)},
			{"booked or arrived at one location", store.JobFilter{Visibility: atLoc, Statuses: []string{"booked", "arrived"}}, only(a, b, d, x)},
			{"a status named twice", store.JobFilter{Visibility: org, Statuses: []string{"arrived", "booked", "arrived"}}, only(a, b, c, d, x)},
			{"in progress", store.JobFilter{Visibility: org, Statuses: []string{"in_progress"}}, nil},
			{"externalKey without integration", store.JobFilter{Visibility: org, ExternalKey: refOf("K")}, only(d)},
			{"externalKey of the integration", store.JobFilter{Visibility: org, ExternalKey: refOf("K"), IntegrationID: in.ID}, only(x)},
			{"unknown externalKey", store.JobFilter{Visibility: org, ExternalKey: refOf("nope")}, nil},
			{"updatedSince", store.JobFilter{Visibility: org, UpdatedSince: &mark}, only(a)},
			{"updatedSince an exact updatedAt", store.JobFilter{Visibility: org, UpdatedSince: &b.UpdatedAt}, only(all...)},
			{"another org", store.JobFilter{Visibility: store.Visibility{OrgID: "org_other"}}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, limit := range []int{1, 2, 200} {
					if got := jobIDs(walkJobs(t, e.st, tc.f, limit, nil)); !slices.Equal(got, append([]string{}, tc.want...)) {
						t.Errorf("limit %d: Jobs = %v, want %v", limit, got, tc.want)
					}
				}
			})
		}

		// A walk while jobs are being added returns every job once.
		added := 0
		walked := walkJobs(t, e.st, store.JobFilter{Visibility: org}, 2, func() {
			if added < 6 {
				e.tick()
				e.createJob(t, e.loc.ID)
				e.createJob(t, other.ID)
				added += 2
			}
		})
		seen := map[string]int{}
		for _, j := range walked {
			seen[j.ID]++
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("job %s returned %d times, want once", id, n)
			}
		}
		if len(walked) != len(all)+added {
			t.Errorf("walk returned %d jobs, want the %d there were and the %d added", len(walked), len(all), added)
		}
		for _, j := range all {
			if seen[j.ID] != 1 {
				t.Errorf("job %s present before the walk returned %d times, want once", j.ID, seen[j.ID])
			}
		}
		if !slices.IsSortedFunc(walked, func(p, q workshop.Job) int {
			if p.CreatedAt != q.CreatedAt {
				return int(p.CreatedAt - q.CreatedAt)
			}
			return strings.Compare(p.ID, q.ID)
		}) {
			t.Errorf("walk = %v, want (createdAt, id) order", jobIDs(walked))
		}
	})
}

func TestCreateJobConcurrentExternalKey(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		const n = 20
		results := make([]store.JobCreate, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				j := e.newJob(e.loc.ID, withExternalKey("dms-race"), func(j *workshop.Job) { j.VehiclePlate = refOf(fmt.Sprint("P-", i)) })
				<-start
				results[i], errs[i] = e.st.CreateJob(ctx, j, i%2 == 0)
			})
		}
		close(start)
		wg.Wait()
		created, winner := 0, ""
		for _, r := range results {
			if r.Created {
				created++
				winner = r.Job.ID
			}
		}
		for i, r := range results {
			if errs[i] != nil {
				t.Errorf("create %d: %v", i, errs[i])
			} else if r.Job.ID != winner {
				t.Errorf("create %d returned job %q, want the created %q", i, r.Job.ID, winner)
			}
		}
		if created != 1 {
			t.Errorf("%d creates made a job, want exactly 1", created)
		}
		page, err := e.st.Jobs(ctx, store.JobFilter{Visibility: e.v}, workshop.PageRequest{Limit: 100})
		if err != nil || len(page.Data) != 1 || page.Data[0].JobNumber != "RO-2026-0001" {
			t.Errorf("Jobs = %d jobs %v, %v, want one, RO-2026-0001", len(page.Data), jobIDs(page.Data), err)
		}
		if got := eventNames(e.events(t)); !slices.Equal(got, []string{workshop.EventJobCreated}) {
			t.Errorf("events = %v, want one job.created", got)
		}
		// The losers left no gap in the numbers.
		if j := e.createJob(t, e.loc.ID); j.JobNumber != "RO-2026-0002" {
			t.Errorf("next number = %q, want RO-2026-0002", j.JobNumber)
		}
	})
}

func TestCreateJobConcurrentNumbers(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		const n = 30
		numbers := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				j := e.newJob(e.loc.ID)
				<-start
				var res store.JobCreate
				res, errs[i] = e.st.CreateJob(ctx, j, false)
				numbers[i] = res.Job.JobNumber
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("create %d: %v", i, err)
			}
		}
		var want []string
		for i := range n {
			want = append(want, workshop.FormatJobNumber(2026, i+1))
		}
		if slices.Sort(numbers); !slices.Equal(numbers, want) {
			t.Errorf("numbers = %v, want %v", numbers, want)
		}
		page, err := e.st.Jobs(ctx, store.JobFilter{Visibility: e.v}, workshop.PageRequest{Limit: 100})
		if err != nil || len(page.Data) != n {
			t.Errorf("Jobs = %d, %v, want %d", len(page.Data), err, n)
		}
		if evs := e.events(t); len(evs) != n {
			t.Errorf("%d events, want %d job.created", len(evs), n)
		}
	})
}

// Two steps of different jobs started at once for a technician with a
// work-in-progress limit of 1: at most one start succeeds, on every
// database (the technician's row is locked before counting).
func TestWIPLimitUnderConcurrentStarts(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		for round := range 10 {
			tech := e.technician(t, e.loc.ID, 1)
			var steps []workshop.Step
			for range 2 {
				j := e.createJob(t, e.loc.ID)
				st := e.createStep(t, j.ID, "Work")
				steps = append(steps, e.patchStep(t, st, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{tech.ID}}))
			}
			var wg sync.WaitGroup
			errs := make([]error, len(steps))
			for i, st := range steps {
				wg.Go(func() {
					_, errs[i] = e.st.PatchStep(t.Context(), store.Visibility{OrgID: e.org.ID}, st.JobID, st.ID,
						store.StepPatch{UpdatedAt: st.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
				})
			}
			wg.Wait()
			started := 0
			for _, err := range errs {
				if err == nil {
					started++
				} else if workshop.ErrorCode(err) != workshop.CodeValidationFailed {
					t.Fatalf("round %d: start: %v", round, err)
				}
			}
			if started != 1 {
				t.Fatalf("round %d: %d steps started for a technician with a limit of 1, want 1", round, started)
			}
		}
	})
}
