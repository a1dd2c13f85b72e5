package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// keepCustomerData sets the location's customer data retention to days.
func (e *jobEnv) keepCustomerData(t *testing.T, days int) {
	t.Helper()
	st, err := e.st.Settings(t.Context(), e.loc.ID)
	if err != nil {
		t.Fatal(err)
	}
	st.CustomerDataRetentionDays = &days
	if err := e.st.SetSettings(t.Context(), e.loc.ID, st); err != nil {
		t.Fatal(err)
	}
}
