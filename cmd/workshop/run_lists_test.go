package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// TestAdminLists makes two organisations with the create commands and
// checks that every list command prints {"data":[...]} with the records it
// names, in order, with the fields their create printed and no secret.
func TestAdminLists(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		admin := func(t *testing.T, args ...string) map[string]any {
			t.Helper()
			return runCmd(t, nil, append(append([]string{"admin"}, args...), "--database", db.URL)...).object(t)
		}
		id := func(m map[string]any) string { s, _ := m["id"].(string); return s }
		orgA := id(admin(t, "org", "create", "--name", "Alpha Motors"))
		orgB := id(admin(t, "org", "create", "--name", "Beta Motors", "--plan", "free"))
		locA := id(admin(t, "location", "create", "--org", orgA, "--name", "Berlin", "--timezone", "Europe/Berlin"))
		locB := id(admin(t, "location", "create", "--org", orgB, "--name", "Queens", "--timezone", "America/New_York"))
		ownerA := id(admin(t, "user", "create", "--org", orgA, "--email", "owner@alpha.example", "--role", "owner"))
		devA := id(admin(t, "user", "create", "--org", orgA, "--email", "dev@alpha.example", "--role", "advisor", "--developer"))
		ownerB := id(admin(t, "user", "create", "--org", orgB, "--email", "owner@beta.example", "--role", "owner"))
		keyA := id(admin(t, "key", "create", "--user", ownerA))
		pinnedA := id(admin(t, "key", "create", "--user", devA, "--location", locA, "--scopes", "jobs:read"))
		keyB := id(admin(t, "key", "create", "--user", ownerB))
		admin(t, "key", "revoke", keyA)
		tokenA := id(admin(t, "mcp-token", "create", "--user", ownerA))
		tech1 := id(admin(t, "technician", "create", "--location", locA, "--name", "Ana"))
		tech2 := id(admin(t, "technician", "create", "--location", locA, "--name", "Ben"))
		bayA := id(admin(t, "bay", "create", "--location", locA, "--name", "Bay 1"))
		admin(t, "technician", "create", "--location", locB, "--name", "Cy")

		for _, tc := range []struct {
			args    []string
			wantIDs []string
			members []string // of every row: what the create printed, the secret aside
		}{
			{[]string{"org", "list"}, []string{orgA, orgB}, []string{"id", "name", "planTier"}},
			{[]string{"location", "list"}, []string{locA, locB}, []string{"id", "orgId", "name", "timezone", "currencyCode"}},
			{[]string{"location", "list", "--org", orgB}, []string{locB}, nil},
			{[]string{"user", "list", "--org", orgA}, []string{devA, ownerA}, []string{"id", "orgId", "email", "role", "developerAccess"}},
			{[]string{"user", "list"}, []string{devA, ownerA, ownerB}, nil},
			{[]string{"key", "list", "--org", orgA}, []string{pinnedA, keyA},
				[]string{"id", "orgId", "userId", "locationId", "integrationId", "scopes", "expiresAt", "revokedAt", "createdAt"}},
			{[]string{"key", "list", "--user", devA}, []string{pinnedA}, nil},
			{[]string{"key", "list"}, []string{pinnedA, keyA, keyB}, nil},
			{[]string{"mcp-token", "list", "--org", orgA}, []string{tokenA}, []string{"id", "orgId", "userId", "scopes", "revokedAt"}},
			{[]string{"mcp-token", "list", "--user", devA}, nil, nil},
			{[]string{"technician", "list", "--location", locA}, []string{tech1, tech2},
				[]string{"id", "locationId", "name", "skills", "wipLimit", "status", "clockedIn", "updatedAt"}},
			{[]string{"bay", "list", "--location", locA}, []string{bayA},
				[]string{"id", "locationId", "name", "equipment", "services", "status", "occupied", "updatedAt"}},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				r := runCmd(t, nil, append(append([]string{"admin"}, tc.args...), "--database", db.URL)...)
				if strings.Contains(r.stdout, "wsk_") || strings.Contains(r.stdout, "wsm_") || strings.Contains(strings.ToLower(r.stdout), "hash") {
					t.Errorf("the list shows a secret or a hash: %s", r.stdout)
				}
				m := r.object(t)
				data, ok := m["data"].([]any)
				if !ok || len(m) != 1 {
					t.Fatalf("got %v, want one member data, a list", m)
				}
				var got []string
				for _, row := range data {
					obj, _ := row.(map[string]any)
					got = append(got, id(obj))
					for _, member := range tc.members {
						if _, ok := obj[member]; !ok {
							t.Errorf("row %v: no member %q", id(obj), member)
						}
					}
				}
				if !slices.Equal(got, tc.wantIDs) {
					t.Errorf("ids: got %v, want %v", got, tc.wantIDs)
				}
			})
		}
		keys := admin(t, "key", "list", "--user", ownerA)["data"].([]any)
		if revoked := keys[0].(map[string]any)["revokedAt"]; len(keys) != 1 || revoked == nil {
			t.Errorf("the revoked key: got %v, want its revokedAt", keys)
		}

		for _, args := range [][]string{
			{"key", "list", "--org", orgA, "--user", devA},
			{"bay", "list", "--location", "loc_nope"},
			{"location", "list", "--org", "org_nope"},
			{"mcp-token", "list", "--user", "usr_nope"},
		} {
			r := runCmd(t, nil, append(append([]string{"admin"}, args...), "--database", db.URL)...)
			if r.code != 1 || r.stdout != "" || r.stderr == "" {
				t.Errorf("run %q: got exit %d, stdout %q, stderr %q; want 1, nothing, a message", args, r.code, r.stdout, r.stderr)
			}
		}
	})
}
