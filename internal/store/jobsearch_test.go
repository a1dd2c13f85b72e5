package store_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func withPlate(p string) func(*workshop.Job) { return func(j *workshop.Job) { j.VehiclePlate = &p } }

func withVehicle(make_, model string) func(*workshop.Job) {
	return func(j *workshop.Job) { j.VehicleMake, j.VehicleModel = &make_, &model }
}

func withCustomer(name, phone string) func(*workshop.Job) {
	return func(j *workshop.Job) { j.CustomerName, j.CustomerPhone = &name, &phone }
}

// TestStoreSearchJobs: a search finds a location's jobs by any part of
// three or more characters of the job number, the plate (any case, spaces
// and dashes ignored), the make, the model, the external key or the
// customer's name, or of three or more digits of the customer's phone
// (separators ignored), when shorter by the start of a value or of any
// word of the number, plate, make, model or customer's name; open jobs
// first, then newest first; never a job of another location or
// organisation.
func TestStoreSearchJobs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		other := e.location(t, "Other", "Europe/Berlin")
		older := e.createJob(t, e.loc.ID, withNumber("A-1"), withPlate("B MW 123"), withVehicle("Volkswagen", "Passat"))
		e.tick()
		newer := e.createJob(t, e.loc.ID, withPlate("bmw123"), withExternalKey("dms-77"), withVehicle("Opel", "Astra"))
		e.tick()
		e.createJob(t, other.ID, withPlate("BMW 123"), withNumber("A-1"), withVehicle("Volkswagen", "Passat"))
		e.tick()
		dashed := e.createJob(t, e.loc.ID, withNumber("RO-2026-0004"), withPlate("B-WK 2211"), withVehicle("Skoda", "Superb"))
		e.tick()
		demo := e.createJob(t, e.loc.ID, withPlate("B-DM 1001"), withVehicle("Mercedes-Benz", "E 220"))
		e.tick()
		plain := e.createJob(t, e.loc.ID)
		e.tick()
		customer := e.createJob(t, e.loc.ID, withNumber("C-7"), withCustomer("Jürgen O'Neill-Krause", "+49 (30) 555-86.41/9"))
		e.tick()
		e.createJob(t, other.ID, withCustomer("Jürgen O'Neill-Krause", "+49 (30) 555-86.41/9"))

		for _, tc := range []struct {
			name, q string
			want    []string
		}{
			{"plate with spaces, lower case", " b mw 1 2 3 ", []string{newer.ID, older.ID}},
			{"plate as stored", "BMW123", []string{newer.ID, older.ID}},
			{"part of a plate", "mw1", []string{newer.ID, older.ID}},
			{"plate without its dash and space", "bwk2211", []string{dashed.ID}},
			{"plate with other dashes", "BW-K22", []string{dashed.ID}},
			{"job number", "A-1", []string{older.ID}},
			{"job number in lower case", "a-1", []string{older.ID}},
			{"part of a job number", "0004", []string{dashed.ID}},
			{"assigned job number", plain.JobNumber, []string{plain.ID}},
			{"model in lower case", "passat", []string{older.ID}},
			{"part of a make", "kswag", []string{older.ID}},
			{"external key", "dms-77", []string{newer.ID}},
			{"part of an external key", "s-7", []string{newer.ID}},
			{"short: a prefix of the make", "sk", []string{dashed.ID}},
			{"short: a prefix of the plate", "b", []string{demo.ID, dashed.ID, newer.ID, older.ID}},
			{"short: not inside a value", "ss", []string{}},
			{"short: the start of a word of the plate, or of the external key", "dm", []string{demo.ID, newer.ID}},
			{"short: a word of the plate in capitals", "DM", []string{demo.ID, newer.ID}},
			{"short: the start of a word of a dashed plate", "wk", []string{dashed.ID}},
			{"short: the start of a word of the make", "be", []string{demo.ID}},
			{"short: the start of a word of the model", "22", []string{demo.ID, dashed.ID}},
			{"short: a word's start, not inside it", "mw", []string{older.ID}},
			{"short: not across words", "sb", []string{}},
			{"short: a wildcard is text", "d%", []string{}},
			{"customer name", "krause", []string{customer.ID}},
			{"part of a customer name", "NEILL", []string{customer.ID}},
			{"short: the start of the customer name", "jü", []string{customer.ID}},
			{"short: the start of a word of the customer name", "kr", []string{customer.ID}},
			{"short: inside a word of the customer name", "ra", []string{}},
			{"phone as written", "+49 (30) 555-86.41/9", []string{customer.ID}},
			{"part of the phone", "555 86", []string{customer.ID}},
			{"part of the phone across its separators", "05558641", []string{customer.ID}},
			{"part of the phone with other separators", "30/555.8", []string{customer.ID}},
			{"short: not a part of the phone", "55", []string{}},
			{"digits and a letter are not a phone", "5558x", []string{}},
			{"a quote is text", `"a`, []string{}},
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

		// A delivered job comes after the open ones, however new.
		e.tick()
		if _, err := e.st.DeliverJob(t.Context(), e.v, newer.ID, e.now()); err != nil {
			t.Fatalf("DeliverJob: %v", err)
		}
		if got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, "bmw", 50); err != nil || !slices.Equal(jobIDs(got), []string{older.ID, newer.ID}) {
			t.Errorf("SearchJobs after delivering the newer = %v, %v, want open first [%s %s]", jobIDs(got), err, older.ID, newer.ID)
		}

		// An edit is found by its new values only.
		e.tick()
		plate, model := "HH-AB 99", "Golf"
		pp, pm := &plate, &model
		if _, err := e.st.PatchJob(t.Context(), e.v, older.ID, store.JobPatch{UpdatedAt: older.UpdatedAt, VehiclePlate: &pp, VehicleModel: &pm}, e.now()); err != nil {
			t.Fatalf("PatchJob: %v", err)
		}
		for q, want := range map[string][]string{"hhab": {older.ID}, "golf": {older.ID}, "passat": {}, "B MW": {newer.ID}} {
			if got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, q, 50); err != nil || !slices.Equal(jobIDs(got), want) {
				t.Errorf("SearchJobs(%q) after an edit = %v, %v, want %v", q, jobIDs(got), err, want)
			}
		}
		// And so is an edit of the customer.
		e.tick()
		name, phone := "Ada Lindqvist", "0171 2345"
		pn, pt := &name, &phone
		if _, err := e.st.PatchJob(t.Context(), e.v, customer.ID, store.JobPatch{UpdatedAt: customer.UpdatedAt, CustomerName: &pn, CustomerPhone: &pt}, e.now()); err != nil {
			t.Fatalf("PatchJob of the customer: %v", err)
		}
		for q, want := range map[string][]string{"lindqvist": {customer.ID}, "li": {customer.ID}, "1712": {customer.ID}, "krause": {}, "kr": {}, "5558": {}} {
			if got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, q, 50); err != nil || !slices.Equal(jobIDs(got), want) {
				t.Errorf("SearchJobs(%q) after an edit of the customer = %v, %v, want %v", q, jobIDs(got), err, want)
			}
		}

		// A cancelled job is found as a closed one.
		e.tick()
		if _, err := e.st.CancelJob(t.Context(), e.v, plain.ID, nil, e.now()); err != nil {
			t.Fatalf("CancelJob: %v", err)
		}
		if got, err := e.st.SearchJobs(t.Context(), e.v, e.loc.ID, plain.JobNumber, 50); err != nil || !slices.Equal(jobIDs(got), []string{plain.ID}) {
			t.Errorf("SearchJobs(%q) after cancelling it = %v, %v, want [%s]", plain.JobNumber, jobIDs(got), err, plain.ID)
		}
		if db.Name == "sqlite" {
			wantIndexedOnce(t, db)
		}
	})
}

// wantIndexedOnce checks SQLite's trigram indexes (migration 00027): each
// job is in exactly one, job_search_open while it is open, job_search once
// delivered or cancelled.
func wantIndexedOnce(t *testing.T, db storetest.Database) {
	t.Helper()
	rows, err := storetest.RawDB(t, db.URL).QueryContext(t.Context(), `SELECT j.id, j.status,
		(SELECT count(*) FROM job_search_open o WHERE o.rowid = j.rowid), (SELECT count(*) FROM job_search c WHERE c.rowid = j.rowid)
		FROM jobs j`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		var open, closed int
		if err := rows.Scan(&id, &status, &open, &closed); err != nil {
			t.Fatal(err)
		}
		wantOpen, wantClosed := 1, 0
		if status == workshop.JobDelivered || status == workshop.JobCancelled {
			wantOpen, wantClosed = 0, 1
		}
		if open != wantOpen || closed != wantClosed {
			t.Errorf("job %s (%s) is in job_search_open %d times and in job_search %d times, want %d and %d", id, status, open, closed, wantOpen, wantClosed)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
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

// TestStoreSearchJobsUsesIndexes: SearchJobs's query is served by
// migration 00026's trigram indexes (made again with the customer by
// 00041), never a scan of the location's jobs, whether the term is long or
// short, rare or in every job, a phone's digits or not.
func TestStoreSearchJobsUsesIndexes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.createJob(t, e.loc.ID, withPlate("AB 1"))
		byIndex := []string{"SCAN s VIRTUAL TABLE INDEX", "SEARCH j USING INTEGER PRIMARY KEY"}
		sqlitePlan := slices.Concat(byIndex, byIndex) // the open jobs, then the closed ones
		want := map[string][]string{"abc": sqlitePlan, "ab": sqlitePlan, "XY 1": sqlitePlan, "N-12345": sqlitePlan, "123 45": sqlitePlan}
		if db.Name == "postgres" {
			// The planner weighs the indexes against the location's jobs:
			// give it many, mostly delivered, and let it count them.
			raw := storetest.RawDB(t, db.URL)
			if _, err := raw.ExecContext(t.Context(), `INSERT INTO jobs (id, org_id, location_id, job_number, vehicle_plate,
				priority, source, status, created_at, updated_at)
				SELECT 'job_many_' || n || $1, $2, $1, 'N-' || n, 'XY ' || n, 'normal', 'other',
					CASE WHEN n % 100 = 0 THEN 'arrived' ELSE 'delivered' END, n, n
				FROM generate_series(1, 20000) AS n`, e.loc.ID, e.org.ID); err != nil {
				t.Fatal(err)
			}
			// As autovacuum would: count them, and move the GIN indexes'
			// pending entries into the indexes proper.
			if _, err := raw.ExecContext(t.Context(), "VACUUM ANALYZE jobs"); err != nil {
				t.Fatal(err)
			}
			// A rare term is looked up in the trigram indexes; one that
			// half the jobs match ("XY1" is in 11,111 plates) walks the
			// jobs newest first and stops at the limit.
			rare := []string{"Bitmap Index Scan on jobs_search_open_trgm", "Bitmap Index Scan on jobs_search_trgm"}
			// A short one too, by the start of a word (migration 00040).
			// A phone's digits too (migration 00041): "123 45" is a plate's
			// part and a phone's.
			want = map[string][]string{"abc": rare, "N-12345": rare, "123 45": rare, "ab": {"Bitmap Index Scan on jobs_search_words_open_trgm"},
				"XY 1": {"Index Scan Backward using jobs_location_open_created", "Index Scan Backward using jobs_"}}
		}
		for q, want := range want {
			plan, err := e.st.ExplainSearch(t.Context(), e.v, e.loc.ID, q)
			if err != nil {
				t.Fatalf("ExplainSearch(%q): %v", q, err)
			}
			rest := plan
			for _, w := range want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("plan of a search for %q = %s, want it to use %s", q, plan, want)
					break
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(plan, "SCAN j ") || strings.Contains(plan, "SEARCH j USING INDEX") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("plan of a search for %q = %s, want no scan of the jobs", q, plan)
			}
		}
	})
}

// TestStoreSearchJobsAfterCustomerSweep: the customer data sweep's erasing
// of a closed job's customer leaves it found by its other values only: its
// customer's name and phone no longer find it, an open job's still do.
func TestStoreSearchJobsAfterCustomerSweep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		ctx := t.Context()
		closed := e.createJob(t, e.loc.ID, withNumber("S-1"), withCustomer("Maria Lopez", "+49 30 1234"))
		e.tick()
		open := e.createJob(t, e.loc.ID, withNumber("S-2"), withCustomer("Maria Lopez", "+49 30 1234"))
		if _, err := e.st.DeliverJob(ctx, e.v, closed.ID, e.now()); err != nil {
			t.Fatal(err)
		}
		e.keepCustomerData(t, 30)
		search := func(when string, want map[string][]string) {
			t.Helper()
			for q, want := range want {
				if got, err := e.st.SearchJobs(ctx, e.v, e.loc.ID, q, 50); err != nil || !slices.Equal(jobIDs(got), want) {
					t.Errorf("SearchJobs(%q) %s = %v, %v, want %v", q, when, jobIDs(got), err, want)
				}
			}
		}
		both := []string{open.ID, closed.ID}
		search("before the sweep", map[string][]string{"lopez": both, "lo": both, "301234": both, "S-1": {closed.ID}})
		e.setClock(e.clk.Now().Add(31 * 24 * time.Hour))
		if got, err := e.st.SweepCustomerData(ctx, e.clk.Now()); err != nil || got.Jobs != 1 {
			t.Fatalf("SweepCustomerData = %+v, %v, want one job erased", got, err)
		}
		search("after the sweep", map[string][]string{"lopez": {open.ID}, "lo": {open.ID}, "301234": {open.ID}, "S-1": {closed.ID}})
		if db.Name == "sqlite" {
			wantIndexedOnce(t, db)
		}
	})
}
