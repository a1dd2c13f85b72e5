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

// renderCreated is a Render of a create: 201 and the record as JSON.
func renderCreated(result any) (int, []byte, error) {
	b, err := json.Marshal(result)
	return http.StatusCreated, append(b, '\n'), err
}

func newIntegration(orgID string) workshop.Integration {
	return workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: orgID, Name: "DMS", SystemType: "dms",
		CreatedAt: at(0), UpdatedAt: at(0)}
}

// createUnder creates an integration in a request running under claim.
func createUnder(ctx context.Context, st *store.Store, claim *workshop.IdempotencyClaim, in workshop.Integration) (workshop.Integration, error) {
	return st.CreateIntegration(workshop.WithIdempotencyClaim(ctx, claim), in)
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

		var first *workshop.IdempotencyClaim
		var stored record
		t.Run("success stores the rendered response", func(t *testing.T) {
			var rendered []any
			first = &workshop.IdempotencyClaim{OrgID: org, Key: "ok", Fingerprint: "fpA", Render: func(r any) (int, []byte, error) {
				rendered = append(rendered, r)
				return renderCreated(r)
			}}
			got, err := createUnder(t.Context(), e.st, first, newIntegration(org))
			if err != nil {
				t.Fatal(err)
			}
			if !first.Completed || first.Raced {
				t.Errorf("Completed, Raced = %v, %v, want true, false", first.Completed, first.Raced)
			}
			if want := []any{got}; !slices.EqualFunc(rendered, want, func(a, b any) bool { return a == b }) {
				t.Errorf("Render called with %v, want once with %v", rendered, want)
			}
			stored = record{Found: true, Fingerprint: "fpA", StatusCode: http.StatusCreated, Body: jsonBody(t, got)}
			wantRecord(t, "after the create", readRecord(t, e.st, org, "ok"), stored)
		})

		t.Run("the key again runs nothing", func(t *testing.T) {
			for _, fp := range []string{"fpA", "fpB"} {
				c := &workshop.IdempotencyClaim{OrgID: org, Key: "ok", Fingerprint: fp, Render: renderCreated}
				in := newIntegration(org)
				_, err := createUnder(t.Context(), e.st, c, in)
				wantCode(t, err, workshop.CodeIdempotencyInProgress)
				if !c.Raced || c.Completed {
					t.Errorf("%s: Raced, Completed = %v, %v, want true, false", fp, c.Raced, c.Completed)
				}
				_, err = e.st.Integration(t.Context(), org, in.ID)
				wantCode(t, err, workshop.CodeNotFound)
			}
			wantRecord(t, "after the repeats", readRecord(t, e.st, org, "ok"), stored)
		})

		t.Run("the same key in another org is another key", func(t *testing.T) {
			c := &workshop.IdempotencyClaim{OrgID: other.ID, Key: "ok", Fingerprint: "fpB", Render: renderCreated}
			got, err := createUnder(t.Context(), e.st, c, newIntegration(other.ID))
			if err != nil || !c.Completed {
				t.Fatalf("create = %v, Completed %v, want nil, true", err, c.Completed)
			}
			wantRecord(t, "other org", readRecord(t, e.st, other.ID, "ok"),
				record{Found: true, Fingerprint: "fpB", StatusCode: http.StatusCreated, Body: jsonBody(t, got)})
		})

		t.Run("a completed claim is not taken again", func(t *testing.T) {
			// A second write of the same request (first is Completed).
			if _, err := createUnder(t.Context(), e.st, first, newIntegration(org)); err != nil {
				t.Errorf("second write under a completed claim = %v, want nil", err)
			}
			wantRecord(t, "after a second write", readRecord(t, e.st, org, "ok"), stored)
		})

		t.Run("a claim without Render is not taken", func(t *testing.T) {
			c := &workshop.IdempotencyClaim{OrgID: org, Key: "no-render", Fingerprint: "fpA"}
			if _, err := createUnder(t.Context(), e.st, c, newIntegration(org)); err != nil {
				t.Fatal(err)
			}
			if c.Completed || c.Raced {
				t.Errorf("Completed, Raced = %v, %v, want false, false", c.Completed, c.Raced)
			}
			wantRecord(t, "no Render", readRecord(t, e.st, org, "no-render"), record{})
		})

		t.Run("failed create stores nothing and frees the key", func(t *testing.T) {
			c := &workshop.IdempotencyClaim{OrgID: org, Key: "dup", Fingerprint: "fpA", Render: renderCreated}
			taken := newIntegration(org)
			if _, err := e.st.CreateIntegration(t.Context(), taken); err != nil {
				t.Fatal(err)
			}
			// The same id again: the insert fails.
			_, err := createUnder(t.Context(), e.st, c, taken)
			if err == nil || workshop.ErrorCode(err) == workshop.CodeIdempotencyInProgress {
				t.Fatalf("CreateIntegration(duplicate id) = %v, want the insert's error", err)
			}
			if c.Completed || c.Raced {
				t.Errorf("Completed, Raced = %v, %v, want false, false", c.Completed, c.Raced)
			}
			wantRecord(t, "after the failure", readRecord(t, e.st, org, "dup"), record{})

			retry := &workshop.IdempotencyClaim{OrgID: org, Key: "dup", Fingerprint: "fpA", Render: renderCreated}
			if _, err := createUnder(t.Context(), e.st, retry, newIntegration(org)); err != nil || !retry.Completed {
				t.Errorf("retry = %v, Completed %v, want nil, true", err, retry.Completed)
			}
		})

		t.Run("failed render rolls the create back", func(t *testing.T) {
			boom := errors.New("render failed")
			c := &workshop.IdempotencyClaim{OrgID: org, Key: "render", Fingerprint: "fpA",
				Render: func(any) (int, []byte, error) { return 0, nil, boom }}
			in := newIntegration(org)
			if _, err := createUnder(t.Context(), e.st, c, in); !errors.Is(err, boom) {
				t.Errorf("CreateIntegration = %v, want %v", err, boom)
			}
			if c.Completed {
				t.Errorf("Completed = true, want false")
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
		c := &workshop.IdempotencyClaim{OrgID: org, Key: "read", Fingerprint: "fpA"}
		if err := e.st.SaveIdempotentResponse(t.Context(), c, http.StatusOK, []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		want := record{Found: true, Fingerprint: "fpA", StatusCode: http.StatusOK, Body: `{"a":1}`}
		wantRecord(t, "saved", readRecord(t, e.st, org, "read"), want)

		// A response stored first wins.
		c2 := &workshop.IdempotencyClaim{OrgID: org, Key: "read", Fingerprint: "fpB"}
		if err := e.st.SaveIdempotentResponse(t.Context(), c2, http.StatusCreated, []byte(`{"b":2}`)); err != nil {
			t.Fatal(err)
		}
		wantRecord(t, "saved again", readRecord(t, e.st, org, "read"), want)

		// And a write under the key finds it taken.
		w := &workshop.IdempotencyClaim{OrgID: org, Key: "read", Fingerprint: "fpA", Render: renderCreated}
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
			if err := e.st.SaveIdempotentResponse(ctx, &workshop.IdempotencyClaim{OrgID: org, Key: key, Fingerprint: "fpA"}, 200, []byte("{}")); err != nil {
				t.Fatal(err)
			}
		}
		created := &workshop.IdempotencyClaim{OrgID: org, Key: "created", Fingerprint: "fpA", Render: renderCreated}
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
		again := &workshop.IdempotencyClaim{OrgID: org, Key: "created", Fingerprint: "fpB", Render: renderCreated}
		_, err := createUnder(ctx, e.st, again, newIntegration(org))
		wantCode(t, err, workshop.CodeIdempotencyInProgress)
		if n, err := e.st.PurgeIdempotencyKeys(ctx); err != nil || n != 0 {
			t.Errorf("Purge at exactly 24h = %d, %v, want 0", n, err)
		}

		e.clk.Advance(time.Microsecond)
		wantRecord(t, "past 24h", readRecord(t, e.st, org, "saved"), record{})
		// Past retention a key starts afresh, whatever the request.
		fresh := &workshop.IdempotencyClaim{OrgID: org, Key: "created", Fingerprint: "fpB", Render: renderCreated}
		got, err := createUnder(ctx, e.st, fresh, newIntegration(org))
		if err != nil || !fresh.Completed {
			t.Fatalf("create past retention = %v, Completed %v, want nil, true", err, fresh.Completed)
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
				c := &workshop.IdempotencyClaim{OrgID: e.org.ID, Key: key, Fingerprint: "old"}
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
				claims := make([]*workshop.IdempotencyClaim, n)
				ids := make([]string, n)
				errs := make([]error, n)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range n {
					claims[i] = &workshop.IdempotencyClaim{OrgID: e.org.ID, Key: key, Fingerprint: "fp", Render: renderCreated}
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
					case err == nil && claims[i].Completed:
						won++
					case workshop.ErrorCode(err) == workshop.CodeIdempotencyInProgress && claims[i].Raced:
					default:
						t.Errorf("request %d: %v (Completed %v, Raced %v), want success or idempotency_in_progress",
							i, err, claims[i].Completed, claims[i].Raced)
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
