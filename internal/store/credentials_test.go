package store_test

import (
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A credential is remembered by hash per process, so this checks that what
// can change about it is still read from the database every time.
func TestCredentialReadsSeeChangesOfAnotherProcess(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		secret := "wsk_" + workshop.NewID("test")
		key, err := e.st.CreateCredential(ctx, workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindAPIKey,
			OrgID: e.org.ID, UserID: e.user.ID, LocationID: e.loc.ID, SecretHash: workshop.HashSecret(secret),
			Scopes: workshop.AllScopes, CreatedAt: at(0)})
		if err != nil {
			t.Fatalf("CreateCredential: %v", err)
		}
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
