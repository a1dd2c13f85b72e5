package operator_test

import (
	"maps"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestDemoDay: the demo comes with a working day, made once: every job
// status in Berlin, steps in progress occupying bays, technicians clocked
// in, the catalog at both locations.
func TestDemoDay(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		op := operator.New(st)
		out, err := op.Demo(ctx)
		if err != nil {
			t.Fatalf("Demo: %v", err)
		}
		berlin, queens := out.LocationIDs[0], out.LocationIDs[1]
		wantBoard := func(step, loc string, want map[string]int, occupied ...string) {
			t.Helper()
			b, err := st.Board(ctx, loc, workshop.MicrosOf(time.Now()))
			if err != nil {
				t.Fatalf("%s: Board(%s): %v", step, loc, err)
			}
			got := maps.Clone(b.Jobs)
			delete(got, "late")
			for status, n := range want {
				if got[status] != n {
					t.Errorf("%s: %s board %s = %d, want %d (board %v)", step, loc, status, got[status], n, b.Jobs)
				}
			}
			var busy []string
			for _, bay := range b.Bays {
				if bay.JobID != nil {
					busy = append(busy, bay.Name)
				}
			}
			if !equalSets(busy, occupied) {
				t.Errorf("%s: %s occupied bays %v, want %v", step, loc, busy, occupied)
			}
		}
		berlinDay := map[string]int{workshop.JobBooked: 1, workshop.JobArrived: 1, workshop.JobInProgress: 2, workshop.JobWaiting: 1,
			workshop.JobReady: 1, workshop.JobDelivered: 1, workshop.JobCancelled: 1, "total": 8}
		queensDay := map[string]int{workshop.JobArrived: 1, workshop.JobInProgress: 1, workshop.JobReady: 1, "total": 3}
		wantBoard("seeded", berlin, berlinDay, "Bay 1", "EV Bay")
		wantBoard("seeded", queens, queensDay, "Bay A")

		v := store.Visibility{OrgID: out.OrgID}
		items, err := st.CatalogItems(ctx, v, workshop.PageRequest{Limit: 50})
		if err != nil || len(items.Data) != 10 {
			t.Errorf("catalog: %d items, %v; want 5 at each location", len(items.Data), err)
		}
		att, err := st.AttendanceRecords(ctx, store.AttendanceFilter{Visibility: v}, workshop.PageRequest{Limit: 50})
		if err != nil || len(att.Data) != 5 {
			t.Fatalf("attendance: %d records, %v; want the 5 technicians clocked in", len(att.Data), err)
		}
		for _, a := range att.Data {
			if a.ClockOut != nil {
				t.Errorf("attendance of %s: clocked out at %v, want still in", a.TechID, a.ClockOut)
			}
		}

		if _, err := op.Demo(ctx); err != nil {
			t.Fatalf("second Demo: %v", err)
		}
		wantBoard("after a second Demo", berlin, berlinDay, "Bay 1", "EV Bay")
	})
}

func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		if seen[x]--; seen[x] < 0 {
			return false
		}
	}
	return true
}
