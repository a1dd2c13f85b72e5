package operator_test

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Every Demo revokes the keys and MCP token the previous one printed; a
// key the demo owner made by hand keeps working.
func TestDemoRevokesThePreviousKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		op := operator.New(st)
		first, err := op.Demo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		own, err := op.CreateKey(ctx, operator.KeyRequest{UserID: first.OwnerID, Name: "my script"})
		if err != nil {
			t.Fatal(err)
		}
		second, err := op.Demo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, secret string
			wantRevoked  bool
		}{
			{"first org key", first.OrgKey, true},
			{"first location key", first.LocationKey, true},
			{"first MCP token", first.MCPToken, true},
			{"second org key", second.OrgKey, false},
			{"second location key", second.LocationKey, false},
			{"second MCP token", second.MCPToken, false},
			{"a key made by hand", own.Key, false},
		} {
			g, err := st.CredentialByHash(ctx, workshop.HashSecret(tc.secret))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got := g.RevokedAt != nil; got != tc.wantRevoked {
				t.Errorf("%s: revoked %v, want %v", tc.name, got, tc.wantRevoked)
			}
		}
	})
}
