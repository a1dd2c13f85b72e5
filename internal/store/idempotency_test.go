package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// renderCreated is the Response of a create: 201 and the record as JSON.
func renderCreated(result any) (int, []byte, error) {
	b, err := json.Marshal(result)
	return http.StatusCreated, append(b, '\n'), err
}

func newIntegration(orgID string) workshop.Integration {
	return workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: orgID, Name: "DMS", SystemType: "dms",
		CreatedAt: at(0), UpdatedAt: at(0)}
}

// createUnder creates an integration under an Idempotency-Key.
func createUnder(ctx context.Context, st *store.Store, key *store.IdempotencyKey, in workshop.Integration) (workshop.Integration, error) {
	return st.CreateIntegration(ctx, in, store.UnderKey(key))
}

// record is what IdempotencyRecord answered, for comparisons.
type record struct {
	Found       bool
	Fingerprint string
	StatusCode  int
	Body        string
}

func readRecord(t *testing.T, st *store.Store, orgID, key string) record {
	t.Helper()
	rec, found, err := st.IdempotencyRecord(t.Context(), orgID, key)
	if err != nil {
		t.Fatalf("IdempotencyRecord(%s): %v", key, err)
	}
	return record{Found: found, Fingerprint: rec.Fingerprint, StatusCode: rec.StatusCode, Body: string(rec.Body)}
}

func wantRecord(t *testing.T, step string, got, want record) {
	t.Helper()
	if got != want {
		t.Errorf("%s: IdempotencyRecord = %+v, want %+v", step, got, want)
	}
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestIdempotencyCompletedInTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		other := createOrg(t, e.st, workshop.PlanPro)
		org := e.org.ID
		wantRecord(t, "unknown key", readRecord(t, e.st, org, "ok"), record{})

		var first *store.IdempotencyKey
		var stored record
		t.Run("success stores the rendered response", func(t *testing.T) {
			var rendered []any
			first = &store.IdempotencyKey{OrgID: org, Key: "ok", Fingerprint: "fpA", Response: func(r any) (int, []byte, error) {
				rendered = append(rendered, r)
				return renderCreated(r)
			}}
			got, err := createUnder(t.Context(), e.st, first, newIntegration(org))
			if err != nil {
				t.Fatal(err)
			}
			if want := []any{got}; !slices.EqualFunc(rendered, want, func(a, b any) bool { return a == b }) {
				t.Errorf("Render called with %v, want once with %v", rendered, want)
			}
			stored = record{Found: true, Fingerprint: "fpA", StatusCode: http.StatusCreated, Body: jsonBody(t, got)}
			wantRecord(t, "after the create", readRecord(t, e.st, org, "ok"), stored)
		})

		t.Run("the key again runs nothing", func(t *testing.T) {
			for _, fp := range []string{"fpA", "fpB"} {
				c := &store.IdempotencyKey{OrgID: org, Key: "ok", Fingerprint: fp, Response: renderCreated}
				in := newIntegration(org)
				_, err := createUnder(t.Context(), e.st, c, in)
				wantCode(t, err, workshop.CodeIdempotencyInProgress)
				_, err = e.st.Integration(t.Context(), org, in.ID)
				wantCode(t, err, workshop.CodeNotFound)
			}
			wantRecord(t, "after the repeats", readRecord(t, e.st, org, "ok"), stored)
		})

		t.Run("the same key in another org is another key", func(t *testing.T) {
			c := &store.IdempotencyKey{OrgID: other.ID, Key: "ok", Fingerprint: "fpB", Response: renderCreated}
			got, err := createUnder(t.Context(), e.st, c, newIntegration(other.ID))
			if err != nil {
				t.Fatalf("create = %v, want nil", err)
			}
			wantRecord(t, "other org", readRecord(t, e.st, other.ID, "ok"),
				record{Found: true, Fingerprint: "fpB", StatusCode: http.StatusCreated, Body: jsonBody(t, got)})
		})

		t.Run("failed create stores nothing and frees the key", func(t *testing.T) {
			c := &store.IdempotencyKey{OrgID: org, Key: "dup", Fingerprint: "fpA", Response: renderCreated}
			taken := newIntegration(org)
			if _, err := e.st.CreateIntegration(t.Context(), taken); err != nil {
				t.Fatal(err)
			}
			// The same id again: the insert fails.
			_, err := createUnder(t.Context(), e.st, c, taken)
			if err == nil || workshop.ErrorCode(err) == workshop.CodeIdempotencyInProgress {
				t.Fatalf("CreateIntegration(duplicate id) = %v, want the insert's error", err)
			}
			wantRecord(t, "after the failure", readRecord(t, e.st, org, "dup"), record{})

			retry := &store.IdempotencyKey{OrgID: org, Key: "dup", Fingerprint: "fpA", Response: renderCreated}
			if _, err := createUnder(t.Context(), e.st, retry, newIntegration(org)); err != nil {
				t.Errorf("retry = %v, want nil", err)
			}
		})

		t.Run("failed render rolls the create back", func(t *testing.T) {
			boom := errors.New("render failed")
			c := &store.IdempotencyKey{OrgID: org, Key: "render", Fingerprint: "fpA",
				Response: func(any) (int, []byte, error) { return 0, nil, boom }}
			in := newIntegration(org)
			if _, err := createUnder(t.Context(), e.st, c, in); !errors.Is(err, boom) {
				t.Errorf("CreateIntegration = %v, want %v", err, boom)
			}
			_, err := e.st.Integration(t.Context(), org, in.ID)
			wantCode(t, err, workshop.CodeNotFound)
			wantRecord(t, "after the failed render", readRecord(t, e.st, org, "render"), record{})
		})
	})
}

func TestIdempotencySaveResponse(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		org := e.org.ID
		c := store.IdempotencyKey{OrgID: org, Key: "read", Fingerprint: "fpA"}
		if err := e.st.SaveIdempotentResponse(t.Context(), c, http.StatusOK, []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		want := record{Found: true, Fingerprint: "fpA", StatusCode: http.StatusOK, Body: `{"a":1}`}
		wantRecord(t, "saved", readRecord(t, e.st, org, "read"), want)

		// A response stored first wins.
		c2 := store.IdempotencyKey{OrgID: org, Key: "read", Fingerprint: "fpB"}
		if err := e.st.SaveIdempotentResponse(t.Context(), c2, http.StatusCreated, []byte(`{"b":2}`)); err != nil {
			t.Fatal(err)
		}
		wantRecord(t, "saved again", readRecord(t, e.st, org, "read"), want)

		// And a write under the key finds it taken.
		w := &store.IdempotencyKey{OrgID: org, Key: "read", Fingerprint: "fpA", Response: renderCreated}
		_, err := createUnder(t.Context(), e.st, w, newIntegration(org))
		wantCode(t, err, workshop.CodeIdempotencyInProgress)
	})
}

func TestIdempotencyRetentionAndPurge(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		org := e.org.ID
		save := func(key string) {
			t.Helper()
			if err := e.st.SaveIdempotentResponse(ctx, store.IdempotencyKey{OrgID: org, Key: key, Fingerprint: "fpA"}, 200, []byte("{}")); err != nil {
				t.Fatal(err)
			}
		}
		created := &store.IdempotencyKey{OrgID: org, Key: "created", Fingerprint: "fpA", Response: renderCreated}
		if _, err := createUnder(ctx, e.st, created, newIntegration(org)); err != nil {
			t.Fatal(err)
		}
		save("saved")
		e.clk.Advance(time.Hour)
		save("young")

		e.clk.Advance(store.IdempotencyRetention - time.Hour)
		if got := readRecord(t, e.st, org, "saved"); !got.Found {
			t.Errorf("at exactly 24h: IdempotencyRecord found = false, want true")
		}
		again := &store.IdempotencyKey{OrgID: org, Key: "created", Fingerprint: "fpB", Response: renderCreated}
		_, err := createUnder(ctx, e.st, again, newIntegration(org))
		wantCode(t, err, workshop.CodeIdempotencyInProgress)
		if n, err := e.st.PurgeIdempotencyKeys(ctx); err != nil || n != 0 {
			t.Errorf("Purge at exactly 24h = %d, %v, want 0", n, err)
		}

		e.clk.Advance(time.Microsecond)
		wantRecord(t, "past 24h", readRecord(t, e.st, org, "saved"), record{})
		// Past retention a key starts afresh, whatever the request.
		fresh := &store.IdempotencyKey{OrgID: org, Key: "created", Fingerprint: "fpB", Response: renderCreated}
		got, err := createUnder(ctx, e.st, fresh, newIntegration(org))
		if err != nil {
			t.Fatalf("create past retention = %v, want nil", err)
		}
		wantRecord(t, "taken afresh", readRecord(t, e.st, org, "created"),
			record{Found: true, Fingerprint: "fpB", StatusCode: http.StatusCreated, Body: jsonBody(t, got)})

		if n, err := e.st.PurgeIdempotencyKeys(ctx); err != nil || n != 1 {
			t.Errorf("Purge = %d, %v, want 1 (saved)", n, err)
		}
		if got := readRecord(t, e.st, org, "young"); !got.Found {
			t.Errorf("young key purged, want kept")
		}
		if n, err := e.st.PurgeIdempotencyKeys(ctx); err != nil || n != 0 {
			t.Errorf("Purge again = %d, %v, want 0", n, err)
		}
	})
}

func TestIdempotencyConcurrentSameKeyRunsOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name  string
			setup func(t *testing.T, key string) // the key's state before the race
		}{
			{"fresh key", func(*testing.T, string) {}},
			{"past retention", func(t *testing.T, key string) {
				c := store.IdempotencyKey{OrgID: e.org.ID, Key: key, Fingerprint: "old"}
				if err := e.st.SaveIdempotentResponse(t.Context(), c, 200, []byte("{}")); err != nil {
					t.Fatal(err)
				}
				e.clk.Advance(store.IdempotencyRetention + time.Microsecond)
			}},
		} {
			// Sequential: the cases move the shared clock.
			t.Run(tc.name, func(t *testing.T) {
				key := "race-" + tc.name
				tc.setup(t, key)
				const n = 20
				claims := make([]*store.IdempotencyKey, n)
				ids := make([]string, n)
				errs := make([]error, n)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range n {
					claims[i] = &store.IdempotencyKey{OrgID: e.org.ID, Key: key, Fingerprint: "fp", Response: renderCreated}
					in := newIntegration(e.org.ID)
					ids[i] = in.ID
					wg.Go(func() {
						<-start
						_, errs[i] = createUnder(t.Context(), e.st, claims[i], in)
					})
				}
				close(start)
				wg.Wait()

				won := 0
				for i, err := range errs {
					switch {
					case err == nil:
						won++
					case workshop.ErrorCode(err) == workshop.CodeIdempotencyInProgress:
					default:
						t.Errorf("request %d: %v, want success or idempotency_in_progress", i, err)
					}
				}
				if won != 1 {
					t.Errorf("requests run = %d, want exactly 1", won)
				}
				made := 0
				for _, id := range ids {
					if _, err := e.st.Integration(t.Context(), e.org.ID, id); err == nil {
						made++
					}
				}
				if made != 1 {
					t.Errorf("integrations created = %d, want exactly 1", made)
				}
				if got := readRecord(t, e.st, e.org.ID, key); !got.Found || got.Fingerprint != "fp" || got.StatusCode != http.StatusCreated {
					t.Errorf("IdempotencyRecord = %+v, want the winner's 201", got)
				}
			})
		}
	})
}
