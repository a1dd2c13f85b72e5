package store_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func withPromise(at time.Time) func(*workshop.Job) {
	return func(j *workshop.Job) { j.PromiseTime = &workshop.OffsetTime{Time: at} }
}

// countJobs is the board's job counts the slow way, from every job of the
// location: the oracle for the tallies the writes keep.
func (e *jobEnv) countJobs(t *testing.T, locationID string, now workshop.Micros) map[string]int {
	t.Helper()
	query := `SELECT status, promise_time_us FROM jobs WHERE location_id = ?`
	if e.db.Name == "postgres" {
		query = strings.Replace(query, "?", "$1", 1)
	}
	rows, err := storetest.RawDB(t, e.db.URL).QueryContext(t.Context(), query, locationID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string]int{"total": 0, "late": 0}
	for _, st := range workshop.JobStatuses {
		want[st] = 0
	}
	for rows.Next() {
		var status string
		var promise *int64
		if err := rows.Scan(&status, &promise); err != nil {
			t.Fatal(err)
		}
		want[status]++
		want["total"]++
		notReady := status == workshop.JobBooked || status == workshop.JobArrived || status == workshop.JobInProgress || status == workshop.JobWaiting
		if notReady && promise != nil && *promise < int64(now) {
			want["late"]++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

// The board's counts, read from tallies that the writes keep, always equal
// a count of the jobs: through creates, arrivals, step work, promise
// changes, delivery, cancellation, writes by hand in SQL, and time passing
// over promises without any write.
func TestBoardCountsMatchTheJobs(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Other", "Europe/Berlin")
		now := e.clk.Now()
		check := func(step string) {
			t.Helper()
			for _, loc := range []string{e.loc.ID, other.ID} {
				b, err := e.st.Board(ctx, loc, e.now())
				if err != nil {
					t.Fatalf("%s: Board: %v", step, err)
				}
				if want := e.countJobs(t, loc, e.now()); !maps.Equal(b.Jobs, want) {
					t.Errorf("%s: board of %s = %v, want %v", step, loc, b.Jobs, want)
				}
			}
		}
		check("empty")

		lastWeek := e.createJob(t, e.loc.ID, withPromise(now.Add(-7*24*time.Hour)))
		yesterday := e.createJob(t, e.loc.ID, withPromise(now.Add(-24*time.Hour)), withArrival(now.Add(-25*time.Hour)))
		earlierToday := e.createJob(t, e.loc.ID, withPromise(now.Add(-time.Hour)), withArrival(now.Add(-2*time.Hour)))
		laterToday := e.createJob(t, e.loc.ID, withPromise(now.Add(time.Hour)))
		tomorrow := e.createJob(t, e.loc.ID, withPromise(now.Add(24*time.Hour)))
		e.createJob(t, e.loc.ID)
		e.createJob(t, other.ID, withPromise(now.Add(-48*time.Hour)))
		check("created")

		// Step work moves a late job to in progress (still late), then to
		// ready (no longer late), then delivered.
		st := e.createStep(t, earlierToday.ID, "Brakes")
		st = e.setStepStatus(t, st, workshop.StepInProgress)
		check("in progress")
		e.setStepStatus(t, st, workshop.StepCompleted)
		check("ready")
		if _, err := e.st.DeliverJob(ctx, e.v, earlierToday.ID, e.now()); err != nil {
			t.Fatalf("DeliverJob: %v", err)
		}
		check("delivered")

		// A promise moved past now, moved into the past, and taken away.
		j := e.job(t, yesterday.ID)
		later := &workshop.OffsetTime{Time: now.Add(48 * time.Hour)}
		if _, err := e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, PromiseTime: &later}, e.now()); err != nil {
			t.Fatalf("PatchJob: %v", err)
		}
		j = e.job(t, tomorrow.ID)
		earlier := &workshop.OffsetTime{Time: now.Add(-30 * time.Hour)}
		if _, err := e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, PromiseTime: &earlier}, e.now()); err != nil {
			t.Fatalf("PatchJob: %v", err)
		}
		j = e.job(t, lastWeek.ID)
		var none *workshop.OffsetTime
		if _, err := e.st.PatchJob(ctx, e.v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, PromiseTime: &none}, e.now()); err != nil {
			t.Fatalf("PatchJob: %v", err)
		}
		check("promises moved")

		if _, err := e.st.CancelJob(ctx, e.v, tomorrow.ID, nil, e.now()); err != nil {
			t.Fatalf("CancelJob: %v", err)
		}
		check("cancelled")

		// Writes by hand: a job moved to the other location, one deleted.
		e.exec(t, `UPDATE jobs SET location_id = ?, job_number = ?, promise_time_us = ? WHERE id = ?`,
			other.ID, "MOVED-1", int64(workshop.MicrosOf(now.Add(-3*time.Hour))), lastWeek.ID)
		e.exec(t, `DELETE FROM job_status_history WHERE job_id = ?`, laterToday.ID)
		e.exec(t, `DELETE FROM jobs WHERE id = ?`, laterToday.ID)
		check("by hand")

		// Time passes over today's and tomorrow's promises without a write.
		e.createJob(t, e.loc.ID, withPromise(now.Add(2*time.Hour)))
		e.createJob(t, e.loc.ID, withPromise(now.Add(26*time.Hour)))
		for i := range 3 {
			e.clk.Advance(14 * time.Hour)
			check(fmt.Sprintf("after %d h", 14*(i+1)))
		}
	})
}
