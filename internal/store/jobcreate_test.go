package store_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

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
