package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func withPlate(p string) func(*workshop.Job) { return func(j *workshop.Job) { j.VehiclePlate = &p } }

// TestStoreSearchJobs: a search finds a location's jobs by job number,
// by plate in any case and spacing, and by external key of any
// integration, newest first; never a job of another location or
// organisation.
func TestStoreSearchJobs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		other := e.location(t, "Other", "Europe/Berlin")
		older := e.createJob(t, e.loc.ID, withNumber("A-1"), withPlate("B MW 123"))
		e.tick()
		newer := e.createJob(t, e.loc.ID, withPlate("bmw123"), withExternalKey("dms-77"))
		e.tick()
		e.createJob(t, other.ID, withPlate("BMW 123"), withNumber("A-1"))
		e.tick()
		plain := e.createJob(t, e.loc.ID)

		for _, tc := range []struct {
			name, q string
			want    []string
		}{
			{"plate with spaces, lower case", " b mw 1 2 3 ", []string{newer.ID, older.ID}},
			{"plate as stored", "BMW123", []string{newer.ID, older.ID}},
			{"job number", "A-1", []string{older.ID}},
			{"job number in lower case", "a-1", []string{older.ID}},
			{"assigned job number", plain.JobNumber, []string{plain.ID}},
			{"external key", "dms-77", []string{newer.ID}},
			{"nothing matches", "ZZZ", []string{}},
			{"empty", "  ", []string{}},
		} {
			got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, tc.q, 50)
			if err != nil {
				t.Fatalf("%s: SearchJobs(%q): %v", tc.name, tc.q, err)
			}
			if ids := jobIDs(got); !slices.Equal(ids, tc.want) {
				t.Errorf("%s: SearchJobs(%q) = %v, want %v", tc.name, tc.q, ids, tc.want)
			}
		}
		stranger := store.Visibility{OrgID: "org_stranger"}
		if got, err := e.st.SearchJobs(t.Context(), stranger, e.loc.ID, "BMW123", 50); err != nil || len(got) != 0 {
			t.Errorf("SearchJobs by another organisation = %v, %v, want nothing", jobIDs(got), err)
		}
		if got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, "BMW123", 1); err != nil || !slices.Equal(jobIDs(got), []string{newer.ID}) {
			t.Errorf("SearchJobs limit 1 = %v, %v, want [%s]", jobIDs(got), err, newer.ID)
		}
	})
}

// TestStoreDayState reads a location's day through a close, and not
// across organisations.
func TestStoreDayState(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		state := func() string {
			t.Helper()
			d, err := e.st.DayState(t.Context(), e.v, e.loc.ID)
			if err != nil {
				t.Fatalf("DayState: %v", err)
			}
			return d.State
		}
		if got := state(); got != workshop.DayOpen {
			t.Errorf("DayState of a new location = %q, want %q", got, workshop.DayOpen)
		}
		if _, err := e.st.StartDayClose(t.Context(), store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		if got := state(); got != workshop.DayClosing {
			t.Errorf("DayState after StartDayClose = %q, want %q", got, workshop.DayClosing)
		}
		if _, err := e.st.FinishDayClose(t.Context(), store.DayCloseFinish{LocationID: e.loc.ID, Today: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		if d, err := e.st.DayState(t.Context(), e.v, e.loc.ID); err != nil || d.State != workshop.DayOpen || d.ClosedDate != "2026-11-20" {
			t.Errorf("DayState after FinishDayClose = %+v, %v, want open, closed 2026-11-20", d, err)
		}
		_, err := e.st.DayState(t.Context(), store.Visibility{OrgID: "org_stranger"}, e.loc.ID)
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// TestStoreCreateJobWithSteps: a job created with steps has them all, with
// one step.created each after job.created; a step that fails validation
// leaves no job and no event behind.
func TestStoreCreateJobWithSteps(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.catalogItem(t, e.loc.ID, "OIL", []string{}, true)
		e.events(t)
		code := "OIL"
		j := e.newJob(e.loc.ID)
		oil := e.newStep(j.ID, "")
		oil.ServiceCode, oil.EstimatedDuration = &code, 0
		free := e.newStep(j.ID, "Check the brakes")
		free.CreatedAt++
		j.Steps = []workshop.Step{oil, free}
		res, err := e.st.CreateJob(t.Context(), j, true)
		if err != nil || !res.Created {
			t.Fatalf("CreateJob with steps = %v, %v", res.Created, err)
		}
		got := e.job(t, j.ID)
		if len(got.Steps) != 2 || got.Steps[0].Label != "Service OIL" || got.Steps[0].EstimatedDuration != 45 || got.Steps[1].Label != "Check the brakes" {
			t.Errorf("steps = %+v, want the catalog's oil change then the free step", got.Steps)
		}
		if got.Status != workshop.JobArrived {
			t.Errorf("status = %s, want %s", got.Status, workshop.JobArrived)
		}
		var names []string
		for _, ev := range e.events(t) {
			names = append(names, ev.Name)
		}
		if want := []string{workshop.EventJobCreated, workshop.EventStepCreated, workshop.EventStepCreated}; !slices.Equal(names, want) {
			t.Errorf("events = %v, want %v", names, want)
		}

		bad := e.newJob(e.loc.ID)
		unknown := "NOPE"
		st := e.newStep(bad.ID, "")
		st.ServiceCode = &unknown
		bad.Steps = []workshop.Step{e.newStep(bad.ID, "Fine"), st}
		_, err = e.st.CreateJob(t.Context(), bad, true)
		wantInvalid(t, err, "serviceCode")
		_, err = e.st.Job(t.Context(), e.v, bad.ID)
		wantCode(t, err, workshop.CodeNotFound)
		if evs := e.events(t); len(evs) != 0 {
			t.Errorf("a refused create recorded %d events", len(evs))
		}
	})
}

// TestStoreSearchJobsUsesIndexes: the plate and external key lookups of
// SearchJobs are index lookups on both databases (migration 00013), not
// scans of the location's jobs.
func TestStoreSearchJobsUsesIndexes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.createJob(t, e.loc.ID, withPlate("AB 1"))
		conn, err := storetest.RawDB(t, db.URL).Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		if db.Name == "postgres" {
			explain = "EXPLAIN "
			// A table of one row is cheaper to scan: ask whether an index
			// can serve the query at all.
			if _, err := conn.ExecContext(t.Context(), "SET enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
		}
		for index, where := range map[string]string{
			"jobs_location_plate":        `upper(replace(vehicle_plate, ' ', '')) = 'AB1'`,
			"jobs_location_external_key": `external_key = 'k'`,
		} {
			rows, err := conn.QueryContext(t.Context(), explain+`SELECT id FROM jobs WHERE location_id = '`+e.loc.ID+`' AND org_id = '`+e.org.ID+`' AND `+where)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			var plan []string
			for rows.Next() {
				dest := make([]any, len(cols))
				for i := range dest {
					dest[i] = new(any)
				}
				if err := rows.Scan(dest...); err != nil {
					t.Fatal(err)
				}
				for _, d := range dest {
					plan = append(plan, fmt.Sprint(*d.(*any)))
				}
			}
			rows.Close()
			if text := strings.Join(plan, " "); !strings.Contains(text, index) {
				t.Errorf("plan of %s = %s, want it to use %s", where, text, index)
			}
		}
	})
}
