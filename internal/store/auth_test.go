package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// withPassword gives a user a password and returns it as a member.
func withPassword(t *testing.T, e env, userID, password string) store.Member {
	t.Helper()
	u, err := e.st.SetPassword(t.Context(), userID, workshop.HashPassword(password))
	if err != nil {
		t.Fatalf("SetPassword: %v", err)
	}
	return memberByEmail(t, e.st, u.Email)
}

// memberByEmail is the one member with an email, failing t otherwise.
func memberByEmail(t *testing.T, st *store.Store, email string) store.Member {
	t.Helper()
	members, err := st.MembersByEmail(t.Context(), email)
	if err != nil || len(members) != 1 {
		t.Fatalf("MembersByEmail(%s) = %v, %v; want one", email, members, err)
	}
	return members[0]
}

// newSession stores a session proving members, acting as the first.
func newSession(t *testing.T, e env, replaces string, members ...store.Member) store.Session {
	t.Helper()
	now := workshop.MicrosOf(e.clk.Now())
	sess := store.Session{ID: workshop.HashSecret(workshop.NewSecret("wss_")), UserID: members[0].User.ID, CreatedAt: now, LastSeenAt: now}
	for _, m := range members {
		sess.Choices = append(sess.Choices, store.ChoiceFor(m))
	}
	if err := e.st.CreateSession(t.Context(), sess, replaces); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return sess
}

// wantSession fails t unless the session is live (acting as userID) or,
// with userID "", gone.
func wantSession(t *testing.T, st *store.Store, id, userID, step string) {
	t.Helper()
	si, err := st.Session(t.Context(), id)
	switch {
	case userID == "" && workshop.ErrorCode(err) != workshop.CodeNotFound:
		t.Errorf("%s: Session = %+v, %v; want not_found", step, si.Member.User, err)
	case userID != "" && err != nil:
		t.Errorf("%s: Session: %v, want live", step, err)
	case userID != "" && si.Member.User.ID != userID:
		t.Errorf("%s: session acts as %q, want %q", step, si.Member.User.ID, userID)
	}
}

// Sessions end after 12 hours idle, and every request that comes more than
// a minute after the last one keeps it alive.
func TestSessionIdleExpiry(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		sess := newSession(t, e, "", withPassword(t, e, e.user.ID, "a long password"))
		e.clk.Advance(workshop.SessionIdleTimeout - time.Minute)
		wantSession(t, e.st, sess.ID, e.user.ID, "11h59m idle")
		e.clk.Advance(workshop.SessionIdleTimeout - time.Minute)
		wantSession(t, e.st, sess.ID, e.user.ID, "11h59m after the last request")
		e.clk.Advance(workshop.SessionIdleTimeout)
		wantSession(t, e.st, sess.ID, "", "12h idle")
	})
}

// A session is checked against its user on every read, so what another
// process changes holds on the next request: a password change or the
// user's removal end it, a role change is what the next request acts with,
// and a sign-in ends the session the browser had.
func TestSessionSeesChangesOfAnotherProcess(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		owner := withPassword(t, e, e.user.ID, "a long password")
		first := newSession(t, e, "", owner)
		wantSession(t, other, first.ID, e.user.ID, "read by the other process")

		second := newSession(t, e, first.ID, owner)
		wantSession(t, other, first.ID, "", "the session a sign-in replaced")
		wantSession(t, other, second.ID, e.user.ID, "the new session")

		raw := storetest.RawDB(t, db.URL)
		if _, err := raw.ExecContext(ctx, `UPDATE users SET role = 'technician' WHERE id = '`+e.user.ID+`'`); err != nil {
			t.Fatal(err)
		}
		if si, err := e.st.Session(ctx, second.ID); err != nil || si.Member.User.Role != workshop.RoleTechnician {
			t.Errorf("after a role change by hand: role %q, %v; want technician", si.Member.User.Role, err)
		}

		if _, err := other.SetPassword(ctx, e.user.ID, workshop.HashPassword("another long password")); err != nil {
			t.Fatal(err)
		}
		wantSession(t, e.st, second.ID, "", "after a password change in the other process")

		advisor := createUser(t, e.st, e.org.ID, workshop.RoleAdvisor)
		sess := newSession(t, e, "", withPassword(t, e, advisor.ID, "a long password"))
		if _, err := raw.ExecContext(ctx, `DELETE FROM users WHERE id = '`+advisor.ID+`'`); err != nil {
			t.Fatal(err)
		}
		wantSession(t, e.st, sess.ID, "", "after the user's removal")

		third := newSession(t, e, "", withPassword(t, e, e.user.ID, "a third long password"))
		if err := other.DeleteSession(ctx, third.ID); err != nil {
			t.Fatal(err)
		}
		wantSession(t, e.st, third.ID, "", "after sign-out in the other process")
	})
}

// A sign-in that matched users of several organisations acts as the one
// picked, may switch to the others, and never to a user it did not prove.
func TestSessionOrganisationChoice(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		otherOrg := createOrg(t, e.st, workshop.PlanPro)
		here := withPassword(t, e, e.user.ID, "a long password")
		there := withPassword(t, e, createUser(t, e.st, otherOrg.ID, workshop.RoleAdvisor).ID, "a long password")
		stranger := createUser(t, e.st, otherOrg.ID, workshop.RoleOwner)

		sess := newSession(t, e, "", here, there)
		if err := e.st.ChooseSessionUser(ctx, sess.ID, there.User.ID); err != nil {
			t.Fatalf("ChooseSessionUser(proved user): %v", err)
		}
		wantSession(t, e.st, sess.ID, there.User.ID, "switched")
		if err := e.st.ChooseSessionUser(ctx, sess.ID, stranger.ID); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("ChooseSessionUser(a user the sign-in did not prove) = %v, want not_found", err)
		}
		wantSession(t, e.st, sess.ID, there.User.ID, "after a refused switch")

		if _, err := e.st.SetPassword(ctx, here.User.ID, workshop.HashPassword("changed long password")); err != nil {
			t.Fatal(err)
		}
		members, err := e.st.SessionMembers(ctx, sess)
		if err != nil || len(members) != 1 || members[0].User.ID != there.User.ID {
			t.Errorf("SessionMembers after one password changed = %v, %v; want only %s", members, err, there.User.ID)
		}
		if err := e.st.ChooseSessionUser(ctx, sess.ID, here.User.ID); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("ChooseSessionUser(user whose password changed) = %v, want not_found", err)
		}
		byEmail, err := e.st.MembersByEmail(ctx, "  "+strings.ToUpper(e.user.Email)+"  ")
		if err != nil || len(byEmail) != 1 || byEmail[0].User.PasswordHash == "" {
			t.Errorf("MembersByEmail(padded, upper case) = %v, %v; want the user with its hash", byEmail, err)
		}
	})
}

// Ten failures of one email within 15 minutes lock it for 15 minutes, also
// when they come from two processes; other emails stay open.
func TestLoginLockout(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		locked := func(st *store.Store, email string) bool {
			t.Helper()
			_, ok, err := st.LoginLockedUntil(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		fail := func(st *store.Store, email string) bool {
			t.Helper()
			l, err := st.RecordLoginFailure(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		// A failure long ago does not count with the ten.
		fail(e.st, "a@example.com")
		e.clk.Advance(workshop.LoginFailureWindow)
		for i := range workshop.LoginFailureLimit - 1 {
			st := []*store.Store{e.st, other}[i%2]
			if fail(st, "A@example.com") || locked(st, "a@example.com") {
				t.Fatalf("locked after %d failures, want only after %d", i+1, workshop.LoginFailureLimit)
			}
			e.clk.Advance(time.Minute)
		}
		if !fail(other, "a@example.com ") {
			t.Fatalf("the %dth failure within the window did not lock", workshop.LoginFailureLimit)
		}
		if !locked(e.st, "a@EXAMPLE.com") {
			t.Error("the lock is not seen by the other process, or depends on case")
		}
		if locked(e.st, "b@example.com") {
			t.Error("another email is locked too")
		}
		e.clk.Advance(workshop.LoginLockDuration - time.Second)
		if !locked(e.st, "a@example.com") {
			t.Error("unlocked before the lock's 15 minutes")
		}
		e.clk.Advance(time.Second)
		if locked(e.st, "a@example.com") {
			t.Error("still locked after 15 minutes")
		}
		if fail(e.st, "a@example.com") {
			t.Error("one failure after the lock locked again: the old failures still count")
		}
	})
}

// An invite works once, within 7 days, and a newer one replaces it.
func TestInvites(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		expires := workshop.MicrosOf(e.clk.Now().Add(workshop.InviteValidity))
		if err := e.st.CreateInvite(ctx, "usr_missing", "h0", expires); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("CreateInvite(unknown user) = %v, want not_found", err)
		}
		for _, h := range []string{"h1", "h2"} {
			if err := e.st.CreateInvite(ctx, e.user.ID, h, expires); err != nil {
				t.Fatalf("CreateInvite: %v", err)
			}
		}
		if _, err := e.st.Invitee(ctx, "h1"); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("Invitee(replaced invite) = %v, want not_found", err)
		}
		if m, err := e.st.Invitee(ctx, "h2"); err != nil || m.User.ID != e.user.ID || m.Org.ID != e.org.ID {
			t.Fatalf("Invitee = %+v, %v; want the user and its organisation", m, err)
		}
		hash := workshop.HashPassword("a long password")
		if m, err := e.st.AcceptInvite(ctx, "h2", hash); err != nil || m.User.PasswordHash != hash {
			t.Fatalf("AcceptInvite = %+v, %v; want the user with the new hash", m.User, err)
		}
		if got := memberByEmail(t, e.st, e.user.Email); got.User.PasswordHash != hash {
			t.Errorf("the password was not stored")
		}
		if _, err := e.st.AcceptInvite(ctx, "h2", hash); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("AcceptInvite a second time = %v, want not_found", err)
		}

		if err := e.st.CreateInvite(ctx, e.user.ID, "h3", expires); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(workshop.InviteValidity)
		if _, err := e.st.Invitee(ctx, "h3"); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("Invitee(7 days old) = %v, want not_found", err)
		}
		if _, err := e.st.AcceptInvite(ctx, "h3", hash); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("AcceptInvite(7 days old) = %v, want not_found", err)
		}
	})
}

// The setup link exists only while the database has no organisation, and
// completes once: of two processes' links, the first used wins.
func TestSetupLink(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		clk := newClock()
		st := storetest.Open(t, db.URL, store.WithClock(clk.Now))
		other := storetest.Open(t, db.URL, store.WithClock(clk.Now))
		expires := workshop.MicrosOf(clk.Now().Add(workshop.InviteValidity))
		for _, tc := range []struct {
			st   *store.Store
			hash string
		}{{st, "s1"}, {other, "s2"}} {
			if made, err := tc.st.CreateSetupToken(ctx, tc.hash, expires); err != nil || !made {
				t.Fatalf("CreateSetupToken on an empty database = %v, %v; want made", made, err)
			}
		}
		if open, err := st.SetupOpen(ctx, "s2"); err != nil || !open {
			t.Errorf("SetupOpen(the other process's link) = %v, %v; want open", open, err)
		}
		if open, _ := st.SetupOpen(ctx, "nope"); open {
			t.Error("SetupOpen(unknown link) is open")
		}
		setup := func(orgName string) store.Setup {
			now := at(0)
			orgID := workshop.NewID(workshop.PrefixOrg)
			return store.Setup{
				Org: workshop.Org{ID: orgID, Name: orgName, PlanTier: workshop.PlanPro, CreatedAt: now, UpdatedAt: now},
				Location: workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: orgID, Name: "Main", Timezone: "Europe/Berlin",
					CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now},
				Settings: workshop.DefaultSettings(),
				Owner: workshop.User{ID: workshop.NewID(workshop.PrefixUser), OrgID: orgID, Email: "owner@example.com", Role: workshop.RoleOwner,
					PasswordHash: workshop.HashPassword("a long password"), CreatedAt: now, UpdatedAt: now},
			}
		}
		first := setup("First")
		if err := other.CompleteSetup(ctx, "s1", first); err != nil {
			t.Fatalf("CompleteSetup: %v", err)
		}
		if err := st.CompleteSetup(ctx, "s2", setup("Second")); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("CompleteSetup with the other link after setup = %v, want not_found", err)
		}
		if open, _ := st.SetupOpen(ctx, "s2"); open {
			t.Error("a setup link is still open after setup")
		}
		if made, err := st.CreateSetupToken(ctx, "s3", expires); err != nil || made {
			t.Errorf("CreateSetupToken with an organisation = %v, %v; want none made", made, err)
		}
		if m := memberByEmail(t, st, first.Owner.Email); m.User.ID != first.Owner.ID || m.Org.Name != "First" ||
			!workshop.PasswordMatches(m.User.PasswordHash, "a long password") {
			t.Errorf("the owner after setup: %+v", m)
		}
		if locs, err := st.Locations(ctx, first.Org.ID, ""); err != nil || len(locs) != 1 {
			t.Errorf("the locations after setup: %v, %v; want the one", locs, err)
		}
	})
}
