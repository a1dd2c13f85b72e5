package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The first run: serve on an empty database prints a setup link, whose
// page makes the organisation, its location and owner once; the owner then
// invites a colleague, who chooses a password through the invite link.
func TestAppSetupAndInvite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		var stdout apitest.LogBuffer
		base := serveWritingTo(t, db.URL, &stdout)
		link := regexp.MustCompile(`(?m)^setup: (http://\S+)/setup/(\S+)$`).FindStringSubmatch(stdout.String())
		if link == nil || link[1] != base {
			t.Fatalf("serve on an empty database printed no setup line for %s: %q", base, stdout.String())
		}
		setupPath := "/setup/" + link[2]
		b := newBrowser(t, base)
		b.get("/setup/"+workshop.NewSecret("")).want(t, "an unknown setup token", http.StatusNotFound, "")
		b.get("/setup/").want(t, "no setup token", http.StatusNotFound, "")
		b.get(setupPath).want(t, "the setup page", http.StatusOK, "", `name="orgName"`, `name="timezone"`, `name="password"`)

		good := url.Values{"orgName": {"Garage <Nord>"}, "locationName": {"Hamburg"}, "timezone": {"Europe/Berlin"},
			"currency": {"EUR"}, "email": {"boss@example.com"}, "password": {testPassword}}
		with := func(field, value string) url.Values {
			v := url.Values{}
			for k, vs := range good {
				v[k] = vs
			}
			v.Set(field, value)
			return v
		}
		for _, tc := range []struct {
			name string
			form url.Values
			text string
		}{
			{"no organisation name", with("orgName", " "), `id="orgName-error"`},
			{"an unknown time zone", with("timezone", "Mars/Olympus"), "IANA time zone"},
			{"a bad currency", with("currency", "euro"), "three-letter currency"},
			{"a bad email", with("email", "boss"), "is not an email address"},
			{"a short password", with("password", "short"), "at least 10 characters"},
			{"no password", with("password", ""), "Choose a password."},
		} {
			p := b.post(setupPath, tc.form)
			p.want(t, tc.name, http.StatusUnprocessableEntity, "", tc.text, `value="Hamburg"`)
			if strings.Contains(p.body, testPassword) {
				t.Errorf("%s: the page repeats the password", tc.name)
			}
		}
		b.post(setupPath, good).want(t, "setup", http.StatusSeeOther, "/")
		home := b.get("/")
		if home.status != http.StatusSeeOther || !strings.HasSuffix(home.location, "/board") {
			t.Fatalf("the owner after setup: GET / = %d to %q, want 303 to a board", home.status, home.location)
		}
		b.get(home.location).want(t, "the owner's board", http.StatusOK, "", "Garage &lt;Nord&gt;", "Hamburg", "boss@example.com", "(owner)")
		newBrowser(t, base).post(setupPath, with("orgName", "Again")).want(t, "the setup link again", http.StatusNotFound, "")
		newBrowser(t, base).get(setupPath).want(t, "the setup page again", http.StatusNotFound, "")

		w := newWorld(t, db.URL)
		members, err := w.st.MembersByEmail(t.Context(), "boss@example.com")
		if err != nil || len(members) != 1 {
			t.Fatalf("members of boss@example.com: %v, %v; want the one owner", members, err)
		}
		colleague, err := w.op.CreateUser(t.Context(), members[0].Org.ID, "mechanic@example.com", workshop.RoleTechnician, false)
		if err != nil {
			t.Fatal(err)
		}
		invite, err := w.op.Invite(t.Context(), colleague.ID, base)
		if err != nil {
			t.Fatal(err)
		}
		invitePath := strings.TrimPrefix(invite.InviteURL, base)
		c := newBrowser(t, base)
		c.get(invitePath).want(t, "the invite page", http.StatusOK, "", "mechanic@example.com", "Garage &lt;Nord&gt;")
		c.get("/invite/"+workshop.NewSecret("")).want(t, "an unknown invite", http.StatusNotFound, "")
		for _, tc := range []struct {
			name, password, confirm, text string
		}{
			{"short", "short", "short", "at least 10 characters"},
			{"differing", testPassword, testPassword + "!", "The two passwords differ."},
		} {
			c.post(invitePath, url.Values{"password": {tc.password}, "confirm": {tc.confirm}}).
				want(t, "invite with a "+tc.name+" password", http.StatusUnprocessableEntity, "", tc.text)
		}
		c.post(invitePath, url.Values{"password": {testPassword}, "confirm": {testPassword}}).want(t, "accept the invite", http.StatusSeeOther, "/")
		if p := c.get("/"); p.status != http.StatusSeeOther || !strings.HasSuffix(p.location, "/board") && p.location != "/my/work" {
			t.Errorf("the invited user after choosing a password: GET / = %d to %q, want a board or their work", p.status, p.location)
		}
		newBrowser(t, base).get(invitePath).want(t, "the invite again", http.StatusNotFound, "")
		newBrowser(t, base).login("mechanic@example.com", testPassword, "").want(t, "sign in with the chosen password", http.StatusSeeOther, "/")
	})
}

// One email and password in two organisations: the user picks one after
// signing in and can switch to the other later.
func TestAppOrganisationSwitcher(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	alpha, beta, gamma := w.org("Alpha Motors", "pro", 1), w.org("Beta Motors", "pro", 1), w.org("Gamma Motors", "pro", 1)
	appUser(t, w, alpha.ID, "both@example.com", workshop.RoleAdvisor, testPassword)
	appUser(t, w, beta.ID, "both@example.com", workshop.RoleTechnician, testPassword)
	notMine := appUser(t, w, gamma.ID, "both@example.com", workshop.RoleOwner, "another long password")
	srv := startServer(t, db)
	b := newBrowser(t, srv.URL)
	alphaBoard, betaBoard := "/locations/"+alpha.Locations[0].ID+"/board", "/locations/"+beta.Locations[0].ID+"/board"

	b.login("both@example.com", testPassword, betaBoard).want(t, "sign in", http.StatusSeeOther, "/orgs?next="+url.QueryEscape(betaBoard))
	b.get("/").want(t, "before picking", http.StatusSeeOther, "/orgs")
	b.get(alphaBoard).want(t, "a board before picking", http.StatusSeeOther, "/orgs")
	p := b.get("/orgs?next=" + url.QueryEscape(betaBoard))
	p.want(t, "the picker", http.StatusOK, "", "Alpha Motors", "Beta Motors")
	if strings.Contains(p.body, "Gamma Motors") {
		t.Error("the picker offers an organisation whose user has another password")
	}
	b.post("/orgs", url.Values{"user": {notMine.ID}}).want(t, "pick an unproved user", http.StatusUnprocessableEntity, "", "Pick one of these")
	beta0 := findMember(t, w, beta.ID)
	b.post("/orgs", url.Values{"user": {beta0}, "next": {betaBoard}}).want(t, "pick Beta", http.StatusSeeOther, betaBoard)
	b.get(betaBoard).want(t, "Beta's board", http.StatusOK, "", "Beta Motors", "(technician)", `href="/orgs"`)
	b.get(alphaBoard).want(t, "Alpha's board while in Beta", http.StatusNotFound, "")
	b.post("/orgs", url.Values{"user": {findMember(t, w, alpha.ID)}}).want(t, "switch to Alpha", http.StatusSeeOther, "/")
	b.get(alphaBoard).want(t, "Alpha's board", http.StatusOK, "", "Alpha Motors", "(advisor)")
}

// findMember is the id of both@example.com in an organisation.
func findMember(t *testing.T, w *testWorld, orgID string) string {
	t.Helper()
	members, err := w.st.MembersByEmail(context.Background(), "both@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if m.Org.ID == orgID {
			return m.User.ID
		}
	}
	t.Fatalf("no both@example.com in %s", orgID)
	return ""
}

// Sessions are rows in the database: one made on a process works on
// another on the same PostgreSQL, and a sign-out or a password change made
// anywhere holds on the next request everywhere.
func TestAppSessionOnSecondProcess(t *testing.T) {
	t.Parallel()
	db := storetest.PostgresURL(t) // skips without WORKSHOP_TEST_POSTGRES_URL
	w := newWorld(t, db)
	a := w.org("Alpha Motors", "pro", 1)
	u := appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	first, second := mpServe(t, db), mpServe(t, db)
	board := "/locations/" + a.Locations[0].ID + "/board"

	one := newBrowser(t, first)
	one.login("advisor@example.com", testPassword, "").want(t, "sign in on the first process", http.StatusSeeOther, "/")
	two := newBrowser(t, second)
	two.c.Jar.SetCookies(mustURL(t, second), []*http.Cookie{{Name: "workshop_session", Value: one.sessionToken()}})
	two.get(board).want(t, "the session on the second process", http.StatusOK, "", "advisor@example.com")
	two.post("/logout", nil).want(t, "sign out on the second process", http.StatusSeeOther, "/login?signed-out=1")
	one.get(board).want(t, "the first process after the sign-out", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))

	one.login("advisor@example.com", testPassword, "").want(t, "sign in again", http.StatusSeeOther, "/")
	if _, err := w.op.SetPassword(context.Background(), u.ID, "a brand new password"); err != nil {
		t.Fatal(err)
	}
	one.get(board).want(t, "after a password change by the operator", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))
}
