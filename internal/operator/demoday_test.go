package operator_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// wantDemoDay checks the working day the demo comes with: every job
// status in Berlin, steps in progress occupying bays, the technicians
// clocked in, the catalog at both locations. A second Demo adds nothing.
func wantDemoDay(t *testing.T, st *store.Store, out operator.DemoOut, step string) {
	t.Helper()
	ctx := t.Context()
	wantBoard := func(loc string, want map[string]int, occupied ...string) {
		t.Helper()
		b, err := st.Board(ctx, loc, workshop.MicrosOf(time.Now()))
		if err != nil {
			t.Fatalf("%s: Board(%s): %v", step, loc, err)
		}
		for status, n := range want {
			if b.Jobs[status] != n {
				t.Errorf("%s: %s board %s = %d, want %d (board %v)", step, loc, status, b.Jobs[status], n, b.Jobs)
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
	wantBoard(out.LocationIDs[0], map[string]int{workshop.JobBooked: 1, workshop.JobArrived: 1, workshop.JobInProgress: 2,
		workshop.JobWaiting: 1, workshop.JobReady: 1, workshop.JobDelivered: 1, workshop.JobCancelled: 1, "total": 8}, "Bay 1", "EV Bay")
	wantBoard(out.LocationIDs[1], map[string]int{workshop.JobArrived: 1, workshop.JobInProgress: 1, workshop.JobReady: 1, "total": 3}, "Bay A")

	v := store.Visibility{OrgID: out.OrgID}
	items, err := st.CatalogItems(ctx, v, workshop.PageRequest{Limit: 50})
	if err != nil || len(items.Data) != 10 {
		t.Errorf("%s: catalog: %d items, %v; want 5 at each location", step, len(items.Data), err)
	}
	att, err := st.AttendanceRecords(ctx, store.AttendanceFilter{Visibility: v}, workshop.PageRequest{Limit: 50})
	if err != nil || len(att.Data) != 5 {
		t.Fatalf("%s: attendance: %d records, %v; want the 5 technicians clocked in", step, len(att.Data), err)
	}
	for _, a := range att.Data {
		if a.ClockOut != nil {
			t.Errorf("%s: attendance of %s: clocked out at %v, want still in", step, a.TechID, a.ClockOut)
		}
	}
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
