package store_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

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
