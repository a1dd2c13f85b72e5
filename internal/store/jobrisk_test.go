package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestStoreLateAndAtRisk: a late job is open, not ready, promised before
// now; a job at risk is open, not ready, promised from now on, with the
// promise watch's verdict; never both, never a finished or ready job, the
// earliest promise first.
func TestStoreLateAndAtRisk(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		now := e.clk.Now()
		risk := func(j workshop.Job) {
			e.exec(t, `INSERT INTO job_promises (job_id, location_id, projected_completion, late_minutes, at_risk_since) VALUES (?, ?, ?, ?, ?)`,
				j.ID, j.LocationID, now.Add(3*time.Hour).Format(time.RFC3339), 30, now.UnixMicro())
		}
		lateLater := e.createJob(t, e.loc.ID, withPromise(now.Add(-time.Hour)))
		lateEarlier := e.createJob(t, e.loc.ID, withPromise(now.Add(-2*time.Hour)))
		risk(lateEarlier) // late already: not also at risk
		riskLater := e.createJob(t, e.loc.ID, withPromise(now.Add(2*time.Hour)))
		risk(riskLater)
		riskEarlier := e.createJob(t, e.loc.ID, withPromise(now.Add(time.Hour)))
		risk(riskEarlier)
		e.createJob(t, e.loc.ID, withPromise(now.Add(time.Hour)))               // on track
		e.createJob(t, e.loc.ID)                                                // no promise
		delivered := e.createJob(t, e.loc.ID, withPromise(now.Add(-time.Hour))) // finished: neither
		risk(delivered)
		if _, err := e.st.DeliverJob(ctx, e.v, delivered.ID, e.now()); err != nil {
			t.Fatalf("DeliverJob: %v", err)
		}
		other := e.location(t, "Other", "Europe/Berlin")
		risk(e.createJob(t, other.ID, withPromise(now.Add(time.Hour))))

		late, err := e.st.LateJobs(ctx, e.v, e.loc.ID, e.now(), 50)
		if err != nil {
			t.Fatalf("LateJobs: %v", err)
		}
		if got, want := jobIDs(late), []string{lateEarlier.ID, lateLater.ID}; !slices.Equal(got, want) {
			t.Errorf("LateJobs = %v, want %v", got, want)
		}
		at, err := e.st.AtRiskJobs(ctx, e.v, e.loc.ID, e.now(), 50)
		if err != nil {
			t.Fatalf("AtRiskJobs: %v", err)
		}
		if got, want := jobIDs(at), []string{riskEarlier.ID, riskLater.ID}; !slices.Equal(got, want) {
			t.Errorf("AtRiskJobs = %v, want %v", got, want)
		}
		if n, err := e.st.AtRiskCount(ctx, e.v, e.loc.ID, e.now()); err != nil || n != 2 {
			t.Errorf("AtRiskCount = %d, %v; want 2", n, err)
		}
		b, err := e.st.Board(ctx, e.loc.ID, e.now())
		if err != nil || b.Jobs["late"] != len(late) {
			t.Errorf("Board late = %d, %v; want %d, as LateJobs", b.Jobs["late"], err, len(late))
		}
	})
}
