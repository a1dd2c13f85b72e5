package store_test

import (
	"sync"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// orgSignedInUser is a user with a password, a live session and an API key.
type orgSignedInUser struct {
	workshop.User
	session, keyHash string
}

func newOrgSignedInUser(t *testing.T, e env, role workshop.Role) orgSignedInUser {
	t.Helper()
	ctx := t.Context()
	id := workshop.NewID(workshop.PrefixUser)
	u, err := e.st.CreateUser(ctx, workshop.User{ID: id, OrgID: e.org.ID, Email: id + "@example.com", Role: role,
		CreatedAt: at(0), UpdatedAt: at(0), PasswordHash: workshop.HashPassword("correct horse battery")})
	if err != nil {
		t.Fatal(err)
	}
	su := orgSignedInUser{User: u, session: workshop.HashSecret(workshop.NewSecret("wss_")), keyHash: workshop.HashSecret(workshop.NewSecret("wsk_"))}
	now := workshop.MicrosOf(e.clk.Now())
	if err := e.st.CreateSession(ctx, store.Session{ID: su.session, UserID: u.ID, CreatedAt: now, LastSeenAt: now,
		Choices: []store.SessionChoice{{UserID: u.ID, Stamp: workshop.PasswordStamp(u.PasswordHash)}}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateCredential(ctx, workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindAPIKey,
		OrgID: e.org.ID, UserID: u.ID, SecretHash: su.keyHash, Scopes: role.Scopes(), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	return su
}

// A change of role is read by the user's session and key on their next
// request; a stale change and one that would leave no owner change
// nothing.
func TestChangeUser(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		advisor := newOrgSignedInUser(t, e, workshop.RoleAdvisor)
		if g, err := e.st.CredentialByHash(ctx, advisor.keyHash); err != nil || g.Role != workshop.RoleAdvisor {
			t.Fatalf("the key's grant before = %v, %v; want the advisor's", g.Role, err)
		}
		now := workshop.MicrosOf(e.clk.Now())
		changed, err := e.st.ChangeUser(ctx, e.user, advisor.ID, store.UserChange{Role: workshop.RoleTechnician, DeveloperAccess: true,
			UpdatedAt: advisor.UpdatedAt}, now)
		if err != nil {
			t.Fatalf("ChangeUser: %v", err)
		}
		if changed.Role != workshop.RoleTechnician || !changed.DeveloperAccess || changed.UpdatedAt <= advisor.UpdatedAt {
			t.Errorf("changed = %+v, want a technician with developer access and a later updatedAt than %d", changed, advisor.UpdatedAt)
		}
		if g, err := e.st.CredentialByHash(ctx, advisor.keyHash); err != nil || g.Role != workshop.RoleTechnician {
			t.Errorf("the key's grant after = %v, %v; want the technician's", g.Role, err)
		}
		if si, err := e.st.Session(ctx, advisor.session); err != nil || si.Member.User.Role != workshop.RoleTechnician {
			t.Errorf("the session after = %v, %v; want the technician's", si.Member.User.Role, err)
		}

		_, err = e.st.ChangeUser(ctx, e.user, advisor.ID, store.UserChange{Role: workshop.RoleAdmin, UpdatedAt: advisor.UpdatedAt}, now)
		if workshop.ErrorCode(err) != workshop.CodeStaleUpdatedAt {
			t.Errorf("a stale change: %v, want stale_updated_at", err)
		}
		_, err = e.st.ChangeUser(ctx, e.user, e.user.ID, store.UserChange{Role: workshop.RoleAdmin, UpdatedAt: e.user.UpdatedAt}, now)
		if workshop.ErrorCode(err) != workshop.CodeValidationFailed {
			t.Errorf("the last owner steps down: %v, want validation_failed", err)
		}
		if u, _ := e.st.User(ctx, advisor.ID); u.Role != workshop.RoleTechnician {
			t.Errorf("after the refused changes the role is %s, want technician", u.Role)
		}
		if u, _ := e.st.User(ctx, e.user.ID); u.Role != workshop.RoleOwner {
			t.Errorf("after the refused changes the owner is %s", u.Role)
		}
		other := createOrg(t, e.st, workshop.PlanPro)
		outsider := createUser(t, e.st, other.ID, workshop.RoleAdvisor)
		_, err = e.st.ChangeUser(ctx, e.user, outsider.ID, store.UserChange{Role: workshop.RoleAdmin, UpdatedAt: outsider.UpdatedAt}, now)
		if workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("a user of another organisation: %v, want not_found", err)
		}
	})
}

// Two owners who demote each other at the same moment leave one owner.
func TestChangeUserKeepsAnOwner(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		second := createUser(t, e.st, e.org.ID, workshop.RoleOwner)
		owners := []workshop.User{e.user, second}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range owners {
			wg.Go(func() {
				actor, target := owners[i], owners[1-i]
				_, errs[i] = e.st.ChangeUser(t.Context(), actor, target.ID, store.UserChange{Role: workshop.RoleAdmin,
					UpdatedAt: target.UpdatedAt}, workshop.MicrosOf(e.clk.Now()))
			})
		}
		wg.Wait()
		left := 0
		users, err := e.st.OrgUsers(t.Context(), e.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			if u.Role == workshop.RoleOwner {
				left++
			}
		}
		if left != 1 || (errs[0] == nil) == (errs[1] == nil) {
			t.Errorf("after both demotions: %d owners, errors %v; want 1 owner and one refusal", left, errs)
		}
	})
}

// A removed user's sessions, invites and keys go with it; the technician
// they worked as stays, unlinked, with a later updatedAt.
func TestRemoveUser(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		tech := newOrgSignedInUser(t, e, workshop.RoleTechnician)
		now := workshop.MicrosOf(e.clk.Now())
		jonas, err := e.st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: e.org.ID,
			LocationID: e.loc.ID, Name: "Jonas", Skills: []string{}, WIPLimit: 2, Status: "available", CreatedAt: now, UpdatedAt: now, UserID: tech.ID})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.st.CreateInvite(ctx, tech.ID, workshop.HashSecret("invite-token"), at(24*60*60*1e9)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.CredentialByHash(ctx, tech.keyHash); err != nil {
			t.Fatalf("the key before: %v", err)
		}

		if err := e.st.RemoveUser(ctx, e.user, e.user.ID, now); workshop.ErrorCode(err) != workshop.CodeValidationFailed {
			t.Errorf("remove yourself: %v, want validation_failed", err)
		}
		if err := e.st.RemoveUser(ctx, e.user, tech.ID, now); err != nil {
			t.Fatalf("RemoveUser: %v", err)
		}
		if _, err := e.st.Session(ctx, tech.session); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("the removed user's session: %v, want not_found", err)
		}
		if _, err := e.st.CredentialByHash(ctx, tech.keyHash); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("the removed user's key: %v, want not_found", err)
		}
		if _, err := e.st.Invitee(ctx, workshop.HashSecret("invite-token")); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("the removed user's invite: %v, want not_found", err)
		}
		if _, err := e.st.OrgUser(ctx, e.org.ID, tech.ID); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("the removed user: %v, want not_found", err)
		}
		got, err := e.st.Technician(ctx, store.Visibility{OrgID: e.org.ID}, jonas.ID)
		if err != nil || got.UpdatedAt <= jonas.UpdatedAt {
			t.Errorf("the technician after = %+v, %v; want it kept with a later updatedAt than %d", got, err, jonas.UpdatedAt)
		}
		if steps, err := e.st.TechnicianSteps(ctx, jonas.ID, store.StepPlace{}); err != nil || len(steps) != 0 {
			t.Errorf("TechnicianSteps = %v, %v", steps, err)
		}
		if err := e.st.RemoveUser(ctx, e.user, tech.ID, now); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("remove again: %v, want not_found", err)
		}
	})
}

// A location edit bumps updatedAt; a stale one changes nothing; a new
// time zone for a location with jobs needs confirming.
func TestEditLocation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		ctx := t.Context()
		now := e.now()
		edit := store.LocationEdit{Name: "Berlin Mitte", Timezone: "Europe/Berlin", Currency: "CHF", UpdatedAt: e.loc.UpdatedAt}
		l, err := e.st.EditLocation(ctx, e.org.ID, e.loc.ID, edit, now)
		if err != nil || l.Name != "Berlin Mitte" || l.CurrencyCode != "CHF" || l.UpdatedAt <= e.loc.UpdatedAt {
			t.Fatalf("EditLocation = %+v, %v; want the new name and currency and a later updatedAt", l, err)
		}
		if _, err := e.st.EditLocation(ctx, e.org.ID, e.loc.ID, edit, now); workshop.ErrorCode(err) != workshop.CodeStaleUpdatedAt {
			t.Errorf("a stale edit: %v, want stale_updated_at", err)
		}
		if _, err := e.st.CreateJob(ctx, e.newJob(e.loc.ID), false); err != nil {
			t.Fatal(err)
		}
		zone := store.LocationEdit{Name: l.Name, Timezone: "Europe/London", Currency: l.CurrencyCode, UpdatedAt: l.UpdatedAt}
		if _, err := e.st.EditLocation(ctx, e.org.ID, e.loc.ID, zone, now); workshop.ErrorCode(err) != workshop.CodeValidationFailed {
			t.Errorf("a new zone unconfirmed: %v, want validation_failed", err)
		}
		zone.ZoneChangeConfirmed = true
		if l, err = e.st.EditLocation(ctx, e.org.ID, e.loc.ID, zone, now); err != nil || l.Timezone != "Europe/London" {
			t.Errorf("a new zone confirmed = %+v, %v", l, err)
		}
		other := createOrg(t, e.st, workshop.PlanPro)
		if _, err := e.st.EditLocation(ctx, other.ID, e.loc.ID, zone, now); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("another organisation's location: %v, want not_found", err)
		}
	})
}
