package store_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// newKey stores an API key of e's user pinned to e's location, and returns
// it with its secret.
func newKey(t *testing.T, e env) (workshop.Credential, string) {
	t.Helper()
	secret := "wsk_" + workshop.NewID("test")
	key, err := e.st.CreateCredential(t.Context(), workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindAPIKey,
		OrgID: e.org.ID, UserID: e.user.ID, LocationID: e.loc.ID, SecretHash: workshop.HashSecret(secret),
		Scopes: workshop.AllScopes, CreatedAt: at(0)})
	if err != nil {
		t.Fatalf("CreateCredential: %v", err)
	}
	return key, secret
}

// A credential is remembered by hash per process, so this checks that what
// can change about it, changed by another process, is seen by the next read.
func TestCredentialReadsSeeChangesOfAnotherProcess(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		key, secret := newKey(t, e)
		read := func(step string) store.CredentialGrant {
			t.Helper()
			var first store.CredentialGrant
			for i := range 2 { // the second read is served from the cache
				g, err := e.st.CredentialByHash(ctx, workshop.HashSecret(secret))
				if err != nil {
					t.Fatalf("%s: CredentialByHash: %v", step, err)
				}
				if g.ID != key.ID || g.LocationID != e.loc.ID || !slices.Equal(g.Scopes, workshop.AllScopes) {
					t.Fatalf("%s: read %d got %s at %s with %v, want %s at %s with every scope", step, i, g.ID, g.LocationID, g.Scopes, key.ID, e.loc.ID)
				}
				first = g
			}
			return first
		}
		if g := read("new key"); g.RevokedAt != nil || g.PlanTier != workshop.PlanPro || g.Role != workshop.RoleOwner {
			t.Fatalf("new key: revoked %v, plan %s, role %s; want not revoked, pro, owner", g.RevokedAt, g.PlanTier, g.Role)
		}

		if _, err := other.SetOrgPlan(ctx, e.org.ID, workshop.PlanStarter); err != nil {
			t.Fatalf("SetOrgPlan in the other process: %v", err)
		}
		if g := read("plan changed by the other process"); g.PlanTier != workshop.PlanStarter {
			t.Fatalf("plan changed by the other process: plan %s, want starter", g.PlanTier)
		}

		revokedAt, err := other.RevokeCredential(ctx, key.ID)
		if err != nil {
			t.Fatalf("RevokeCredential in the other process: %v", err)
		}
		if g := read("revoked by the other process"); g.RevokedAt == nil || *g.RevokedAt != revokedAt {
			t.Fatalf("revoked by the other process: revokedAt %v, want %v", g.RevokedAt, revokedAt)
		}
	})
}

// A remembered grant is served while the auth epoch is unmoved, and
// triggers move it, so even a change made by hand, past the store, is seen
// by the next read: a user's role, a credential's revocation, and the
// deletion of the credential.
func TestCredentialReadsSeeChangesMadeByHand(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		raw := storetest.RawDB(t, db.URL)
		exec := func(query string, args ...any) {
			t.Helper()
			if db.Name == "postgres" {
				query = strings.ReplaceAll(query, "?", "$1")
			}
			if _, err := raw.ExecContext(ctx, query, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		key, secret := newKey(t, e)
		read := func() (store.CredentialGrant, error) { return e.st.CredentialByHash(ctx, workshop.HashSecret(secret)) }
		for range 2 { // the second read is served from memory
			if g, err := read(); err != nil || g.Role != workshop.RoleOwner {
				t.Fatalf("new key: role %s, error %v; want owner, nil", g.Role, err)
			}
		}

		exec(`UPDATE users SET role = 'technician' WHERE id = ?`, e.user.ID)
		if g, err := read(); err != nil || g.Role != workshop.RoleTechnician {
			t.Fatalf("role changed by hand: role %s, error %v; want technician, nil", g.Role, err)
		}

		exec(`UPDATE credentials SET revoked_at = 1 WHERE id = ?`, key.ID)
		if g, err := read(); err != nil || g.RevokedAt == nil || *g.RevokedAt != 1 {
			t.Fatalf("revoked by hand: revokedAt %v, error %v; want 1, nil", g.RevokedAt, err)
		}

		exec(`DELETE FROM credentials WHERE id = ?`, key.ID)
		if g, err := read(); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Fatalf("deleted by hand: got %s, error %v; want not found", g.ID, err)
		}
	})
}

// Concurrent requests share reads of the auth epoch; a read answers only
// the requests that arrived before it began, so every request that begins
// after a revocation returned sees it.
func TestCredentialReadsAfterARevocationSeeIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		key, secret := newKey(t, e)
		var revoked atomic.Bool
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				for after := 0; after < 50; {
					wasRevoked := revoked.Load()
					g, err := e.st.CredentialByHash(ctx, workshop.HashSecret(secret))
					if err != nil {
						errs <- err
						return
					}
					if wasRevoked {
						after++
						if g.RevokedAt == nil {
							errs <- fmt.Errorf("a read begun after the revocation returned found the key not revoked")
							return
						}
					}
				}
			})
		}
		if _, err := other.RevokeCredential(ctx, key.ID); err != nil {
			t.Fatalf("RevokeCredential in the other process: %v", err)
		}
		revoked.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
