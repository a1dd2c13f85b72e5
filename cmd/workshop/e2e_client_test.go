package main

import (
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/client"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The importable Go client sends each of the three states of a nullable
// field that may be omitted: a job's arrivalTime omitted (a walk-in, the
// server stamps now), null (a pre-booking) and a value.
func TestClientSendsNullOmittedAndValue(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		org := w.org("Null Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		c := apitest.Client(t, srv.URL, org.Key.Key)
		arrived := time.Now().Add(-time.Hour).Truncate(time.Second)
		for _, tt := range []struct {
			name        string
			arrivalTime nullable.Nullable[time.Time]
			wantStatus  client.JobStatus
			wantMember  func(a nullable.Nullable[time.Time]) bool
		}{
			{"omitted: a walk-in", nullable.Nullable[time.Time]{}, client.JobStatusArrived,
				func(a nullable.Nullable[time.Time]) bool { return a.IsSpecified() && !a.IsNull() }},
			{"null: a pre-booking", nullable.NewNullNullable[time.Time](), client.JobStatusBooked,
				func(a nullable.Nullable[time.Time]) bool { return a.IsNull() }},
			{"a value: an arrival", nullable.NewNullableWithValue(arrived), client.JobStatusArrived,
				func(a nullable.Nullable[time.Time]) bool { v, err := a.Get(); return err == nil && v.Equal(arrived) }},
		} {
			t.Run(tt.name, func(t *testing.T) {
				plate := "N-" + tt.name[:4]
				r, err := c.CreateJobWithResponse(t.Context(), nil, client.JobCreate{
					LocationId: &org.Locations[0].ID, VehiclePlate: &plate, ArrivalTime: tt.arrivalTime,
				})
				if err != nil || r.JSON201 == nil {
					t.Fatalf("create job: %v, %d %s", err, r.StatusCode(), r.Body)
				}
				if got := r.JSON201; got.Status != tt.wantStatus || !tt.wantMember(got.ArrivalTime) {
					t.Errorf("got status %s arrivalTime %s, want status %s; body %s", got.Status, rawMembers(t, r.Body)["arrivalTime"], tt.wantStatus, r.Body)
				}
			})
		}
	})
}
