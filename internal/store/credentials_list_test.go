package store_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func newCredential(t *testing.T, st *store.Store, orgID, userID, name string, kind workshop.CredentialKind, createdAt workshop.Micros) workshop.Credential {
	t.Helper()
	c, err := st.CreateCredential(t.Context(), workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: kind, Name: name,
		OrgID: orgID, UserID: userID, SecretHash: workshop.HashSecret(workshop.NewSecret(workshop.APIKeyPrefix)),
		Scopes: []workshop.Scope{"jobs:read"}, CreatedAt: createdAt})
	if err != nil {
		t.Fatalf("CreateCredential: %v", err)
	}
	return c
}

// TestCredentialLists: the developer settings' lists, newest first, of the
// organisation or one user, of one kind, with their names and owners.
func TestCredentialLists(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		advisor := createUser(t, e.st, e.org.ID, workshop.RoleAdvisor)
		other := createOrg(t, e.st, workshop.PlanPro)
		stranger := createUser(t, e.st, other.ID, workshop.RoleOwner)
		first := newCredential(t, e.st, e.org.ID, e.user.ID, "first", workshop.KindAPIKey, at(time.Second))
		second := newCredential(t, e.st, e.org.ID, advisor.ID, "second", workshop.KindAPIKey, at(2*time.Second))
		token := newCredential(t, e.st, e.org.ID, advisor.ID, "assistant", workshop.KindMCPToken, at(3*time.Second))
		newCredential(t, e.st, other.ID, stranger.ID, "theirs", workshop.KindAPIKey, at(4*time.Second))

		for _, tc := range []struct {
			name   string
			filter store.CredentialFilter
			want   []string
		}{
			{"the organisation's keys", store.CredentialFilter{OrgID: e.org.ID, Kind: workshop.KindAPIKey}, []string{second.ID, first.ID}},
			{"one user's keys", store.CredentialFilter{OrgID: e.org.ID, UserID: advisor.ID, Kind: workshop.KindAPIKey}, []string{second.ID}},
			{"the organisation's tokens", store.CredentialFilter{OrgID: e.org.ID, Kind: workshop.KindMCPToken}, []string{token.ID}},
			{"another organisation's user", store.CredentialFilter{OrgID: e.org.ID, UserID: stranger.ID, Kind: workshop.KindAPIKey}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list, err := e.st.Credentials(ctx, tc.filter)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range list {
					got = append(got, c.ID)
				}
				if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) || (len(got) > 1 && got[1] != tc.want[1]) {
					t.Errorf("Credentials(%+v) = %v, want %v", tc.filter, got, tc.want)
				}
			})
		}
		c, err := e.st.Credential(ctx, e.org.ID, second.ID)
		if err != nil || c.Name != "second" || c.UserEmail != advisor.Email || c.LastUsedAt != nil {
			t.Errorf("Credential = %+v, %v, want second of %s, never used", c, err, advisor.Email)
		}
		_, err = e.st.Credential(ctx, other.ID, second.ID)
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// TestNoteCredentialUse: a use is recorded in the background, once a
// minute at most, and recording it leaves the auth epoch where it was
// (the grants every process remembers stay valid).
func TestNoteCredentialUse(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		k := newCredential(t, e.st, e.org.ID, e.user.ID, "ci", workshop.KindAPIKey, at(0))
		epoch, err := e.st.AuthEpoch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lastUsed := func() *workshop.Micros {
			c, err := e.st.Credential(ctx, e.org.ID, k.ID)
			if err != nil {
				t.Fatal(err)
			}
			return c.LastUsedAt
		}
		waitUsedAt := func(step string, want time.Time) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for {
				got := lastUsed()
				if got != nil && *got == workshop.MicrosOf(want) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: last used %v, want %s", step, got, workshop.MicrosOf(want))
				}
				time.Sleep(5 * time.Millisecond) // a background write: nothing to wait on but the read
			}
		}
		used := t0.Add(time.Hour)
		e.st.NoteCredentialUse(k.ID, used)
		waitUsedAt("the first use", used)
		e.st.NoteCredentialUse(k.ID, used.Add(30*time.Second)) // within the minute: not written
		later := used.Add(2 * time.Minute)
		e.st.NoteCredentialUse(k.ID, later)
		waitUsedAt("a use two minutes later", later)
		if got, err := e.st.AuthEpoch(ctx); err != nil || got != epoch {
			t.Errorf("auth epoch after recording uses = %d, %v, want %d unmoved", got, err, epoch)
		}

		// Another process (a store of its own) keeps a newer time recorded
		// within the minute as it is.
		other := storetest.Open(t, db.URL, db.Options...)
		other.NoteCredentialUse(k.ID, later.Add(-time.Minute))
		e.st.NoteCredentialUse(k.ID, later.Add(time.Minute+time.Second))
		waitUsedAt("the newest use", later.Add(time.Minute+time.Second))
	})
}
