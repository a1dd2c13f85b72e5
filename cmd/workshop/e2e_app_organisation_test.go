package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// orgInvitees numbers the users the matrix invites: each email is new.
var orgInvitees atomic.Int64

// orgMatrixUser makes a user for a matrix action to change or remove.
func orgMatrixUser(m *matrixWorld, role workshop.Role) workshop.User {
	m.w.t.Helper()
	email := "target" + strings.Repeat("x", int(orgInvitees.Add(1))) + "@matrix.example"
	return appUser(m.w.t, m.w, m.org.ID, email, role, "")
}

var organisationActions = []appAction{
	{name: "organisation page", method: "GET", path: func(*matrixWorld) string { return "/organisation" }, allowed: adminsOnly},
	{name: "new location page", method: "GET", path: func(*matrixWorld) string { return "/organisation/locations/new" }, allowed: adminsOnly},
	{name: "create location", method: "POST", path: func(*matrixWorld) string { return "/organisation/locations/new" },
		form: func(*matrixWorld) url.Values {
			return url.Values{"name": {"Matrix annex"}, "timezone": {"Europe/Paris"}, "currency": {"EUR"}}
		}, allowed: adminsOnly},
	{name: "location page", method: "GET", path: func(m *matrixWorld) string { return "/organisation/locations/" + m.loc.ID }, allowed: adminsOnly},
	// no updatedAt: a conflict, nothing changed for the actions after it
	{name: "edit location", method: "POST", path: func(m *matrixWorld) string { return "/organisation/locations/" + m.loc.ID },
		form: func(m *matrixWorld) url.Values {
			return url.Values{"name": {m.loc.Name}, "timezone": {m.loc.Timezone}, "currency": {m.loc.CurrencyCode}}
		}, allowed: adminsOnly},
	{name: "invite user", method: "POST", path: func(*matrixWorld) string { return "/organisation/users" },
		form: func(*matrixWorld) url.Values {
			return url.Values{"email": {"invited" + strings.Repeat("x", int(orgInvitees.Add(1))) + "@matrix.example"}, "role": {"advisor"}}
		}, allowed: adminsOnly},
	{name: "user page", method: "GET", path: func(m *matrixWorld) string { return "/organisation/users/" + m.users[workshop.RoleAdvisor].ID },
		allowed: adminsOnly},
	{name: "change user", method: "POST", path: func(m *matrixWorld) string { return "/organisation/users/" + orgMatrixUser(m, workshop.RoleAdvisor).ID },
		form: func(*matrixWorld) url.Values { return url.Values{"role": {"technician"}} }, allowed: adminsOnly},
	{name: "invite user again", method: "POST",
		path: func(m *matrixWorld) string {
			return "/organisation/users/" + orgMatrixUser(m, workshop.RoleAdvisor).ID + "/invite"
		},
		form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: adminsOnly},
	{name: "remove user", method: "POST",
		path: func(m *matrixWorld) string {
			return "/organisation/users/" + orgMatrixUser(m, workshop.RoleTechnician).ID + "/remove"
		},
		form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: adminsOnly},
}

func init() { appActions = append(appActions, organisationActions...) }

var orgInviteLinkRe = regexp.MustCompile(`value="(http://[^"]+/invite/[^"]+)"`)

// orgInviteLink is the one-time link an invite page shows.
func orgInviteLink(t *testing.T, p page) string {
	t.Helper()
	m := orgInviteLinkRe.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no invite link on the page; body %.600s", p.body)
	}
	return m[1]
}

// orgVersionField is the updatedAt a form of the page was made from.
func orgVersionField(t *testing.T, p page) string {
	t.Helper()
	m := regexp.MustCompile(`name="updatedAt" value="(\d+)"`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no updatedAt on the page; body %.600s", p.body)
	}
	return m[1]
}

// An owner creates a location and sees it in the header, edits it (a
// stale edit is a conflict with the current values, a new time zone for
// a location with jobs needs confirming), and the plan is shown.
func TestAppOrganisationLocations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("Org Motors", "starter", 1)
		appUser(t, w, org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
		w.job(org.ID, org.Locations[0].ID)
		srv := startServer(t, db.URL)
		b := newBrowser(t, srv.URL)
		b.login("boss@example.com", testPassword, "").want(t, "the owner signs in", http.StatusSeeOther, "/")

		b.get("/organisation").want(t, "the organisation", http.StatusOK, "", "<h1>Org Motors</h1>", "starter",
			org.Locations[0].Name, "owner@example.com", "boss@example.com", "password set", "no valid invite")

		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			texts  []string
		}{
			{"no name", url.Values{"name": {" "}, "timezone": {"Europe/Lisbon"}, "currency": {"EUR"}}, http.StatusUnprocessableEntity,
				[]string{`id="name-error"`}},
			{"unknown zone", url.Values{"name": {"North"}, "timezone": {"Mars/Base"}, "currency": {"EUR"}}, http.StatusUnprocessableEntity,
				[]string{`id="timezone-error"`, "not an IANA time zone", `value="North"`}},
			{"bad currency", url.Values{"name": {"North"}, "timezone": {"Europe/Lisbon"}, "currency": {"euro"}}, http.StatusUnprocessableEntity,
				[]string{`id="currency-error"`, "three-letter"}},
			{"created", url.Values{"name": {"North <i>site</i>"}, "timezone": {"Europe/Lisbon"}, "currency": {"GBP"}}, http.StatusSeeOther, nil},
		} {
			b.post("/organisation/locations/new", tc.form).want(t, "create location, "+tc.name, tc.status, "", tc.texts...)
		}
		locs, err := w.st.Locations(ctx, org.ID, "")
		if err != nil || len(locs) != 2 {
			t.Fatalf("locations = %v, %v; want 2 (one made by the page alone)", locs, err)
		}
		north := locs[1]
		if north.Name != "North <i>site</i>" || north.Timezone != "Europe/Lisbon" || north.CurrencyCode != "GBP" {
			t.Errorf("created location = %+v", north)
		}
		b.get("/organisation").want(t, "the header shows the new location", http.StatusOK, "",
			`href="/locations/`+north.ID+`/board"`, "North &lt;i&gt;site&lt;/i&gt;")

		edit := "/organisation/locations/" + north.ID
		opened := orgVersionField(t, b.get(edit))
		b.post(edit, url.Values{"updatedAt": {opened}, "name": {"North"}, "timezone": {"Europe/Lisbon"}, "currency": {"EUR"}}).
			want(t, "edit", http.StatusSeeOther, orgPath)
		p := b.post(edit, url.Values{"updatedAt": {opened}, "name": {"Stale name"}, "timezone": {"Europe/Lisbon"}, "currency": {"EUR"}})
		p.want(t, "stale edit", http.StatusConflict, "", "Someone else changed this", `value="North"`, `value="EUR"`)
		p.wantNot(t, "stale edit", "Stale name")
		if cur, _ := w.st.Location(ctx, org.ID, north.ID); cur.Name != "North" {
			t.Errorf("after the stale edit the name is %q, want North", cur.Name)
		}

		busy := "/organisation/locations/" + org.Locations[0].ID
		p = b.get(busy)
		p.want(t, "a location with jobs", http.StatusOK, "", "This location has jobs", `name="confirmZone"`)
		change := url.Values{"updatedAt": {orgVersionField(t, p)}, "name": {org.Locations[0].Name}, "timezone": {"Europe/London"}, "currency": {"EUR"}}
		b.post(busy, change).want(t, "new zone unconfirmed", http.StatusUnprocessableEntity, "", `id="timezone-error"`, "Tick the confirmation")
		change.Set("confirmZone", "on")
		b.post(busy, change).want(t, "new zone confirmed", http.StatusSeeOther, orgPath)
		if cur, _ := w.st.Location(ctx, org.ID, org.Locations[0].ID); cur.Timezone != "Europe/London" {
			t.Errorf("zone after the confirmed change = %q, want Europe/London", cur.Timezone)
		}
		b.get("/organisation/locations/loc_nope").want(t, "unknown location", http.StatusNotFound, "")
		other := w.org("Other Motors", "pro", 1)
		b.get("/organisation/locations/"+other.Locations[0].ID).want(t, "another organisation's location", http.StatusNotFound, "")
		b.get("/organisation/users/"+other.Owner.ID).want(t, "another organisation's user", http.StatusNotFound, "")
		b.post("/organisation/users/"+other.Owner.ID+"/remove", url.Values{}).want(t, "remove another organisation's user", http.StatusNotFound, "")
		if _, err := w.st.User(ctx, other.Owner.ID); err != nil {
			t.Errorf("another organisation's owner after the refused removal: %v", err)
		}
	})
}

const orgPath = "/organisation"

// An invited user opens the link, chooses a password and signs in; a
// change of their role holds on their next page and API call; removing
// them ends their session and their key at once. The guard rails hold:
// the last owner stays, admins leave owners alone, nobody removes
// themself.
func TestAppOrganisationUsers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("People Motors", "pro", 1)
		loc := org.Locations[0]
		boss := appUser(t, w, org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
		admin := appUser(t, w, org.ID, "admin@example.com", workshop.RoleAdmin, testPassword)
		srv := startServer(t, db.URL)
		owner := newBrowser(t, srv.URL)
		owner.login("boss@example.com", testPassword, "").want(t, "the owner signs in", http.StatusSeeOther, "/")

		owner.post("/organisation/users", url.Values{"email": {"not an email"}, "role": {"advisor"}}).
			want(t, "invite, bad email", http.StatusUnprocessableEntity, "", `id="email-error"`)
		owner.post("/organisation/users", url.Values{"email": {"admin@example.com"}, "role": {"advisor"}}).
			want(t, "invite, email taken", http.StatusUnprocessableEntity, "", "already exists")
		p := owner.post("/organisation/users", url.Values{"email": {"new@example.com"}, "role": {"advisor"}, "developer": {"on"}})
		p.want(t, "invite", http.StatusCreated, "", "Invite link for new@example.com", "Copy the link", "invite pending")
		link := orgInviteLink(t, p)
		if !strings.HasPrefix(link, srv.URL+"/invite/") {
			t.Errorf("invite link %q is not on the server's address %s", link, srv.URL)
		}
		owner.get("/organisation").wantNot(t, "the link is shown once", link)
		users, err := w.st.OrgUsers(ctx, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		var invited workshop.User
		for _, u := range users {
			if u.Email == "new@example.com" {
				invited = u.User
			}
		}
		userPath := "/organisation/users/" + invited.ID
		owner.get(userPath).want(t, "a user without a password", http.StatusOK, "", "Make a new invite link")
		lost := link // a new link replaces it
		link = orgInviteLink(t, owner.post(userPath+"/invite", url.Values{}))
		if lost == link {
			t.Errorf("the new invite link is the old one")
		}

		staff := newBrowser(t, srv.URL)
		path := strings.TrimPrefix(link, srv.URL)
		staff.get(path).want(t, "the invite page", http.StatusOK, "", "new@example.com")
		staff.post(path, url.Values{"password": {testPassword}, "confirm": {testPassword}}).want(t, "accept", http.StatusSeeOther, "/")
		staff = newBrowser(t, srv.URL)
		staff.login("new@example.com", testPassword, "").want(t, "the invited user signs in", http.StatusSeeOther, "/")
		newJob := "/locations/" + loc.ID + "/jobs/new"
		staff.get(newJob).want(t, "an advisor writes jobs", http.StatusOK, "")
		owner.get("/organisation").want(t, "the user has a password", http.StatusOK, "", "password set")
		owner.post(userPath+"/invite", url.Values{}).want(t, "invite a user with a password", http.StatusUnprocessableEntity, "",
			"already has a password")
		staff.get(strings.TrimPrefix(lost, srv.URL)).want(t, "the replaced link", http.StatusNotFound, "")

		if invited.Role != workshop.RoleAdvisor || !invited.DeveloperAccess {
			t.Fatalf("invited user = %+v, want an advisor with developer access", invited)
		}
		// The user works through both servers on the database: each must see
		// the change of role and the removal on the very next request.
		key := w.key(operator.KeyRequest{UserID: invited.ID})
		token, err := w.op.CreateMCPToken(ctx, invited.ID)
		if err != nil {
			t.Fatal(err)
		}
		srv2 := startServer(t, db.URL)
		staff2 := newBrowser(t, srv2.URL)
		staff2.c.Jar = staff.c.Jar // the same session, on the other server
		clients := []struct {
			name    string
			base    string
			browser *browser
		}{{"server 1", srv.URL, staff}, {"server 2", srv2.URL, staff2}}
		technicians := apitest.Request{Method: "GET", Path: "/v1/scheduler/technicians", Key: key.Key}
		mcpInit := apitest.Request{Method: "POST", Path: "/mcp", Key: token.Token, Header: http.Header{"Accept": {"application/json, text/event-stream"}},
			Body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`}
		for _, c := range clients {
			c.browser.get(newJob).want(t, c.name+": an advisor writes jobs", http.StatusOK, "")
			if r := apitest.Call(t, c.base, technicians); r.Status != http.StatusOK {
				t.Errorf("%s: the advisor's key reads technicians: %d, want 200", c.name, r.Status)
			}
			if r := apitest.Call(t, c.base, mcpInit); r.Status != http.StatusOK {
				t.Errorf("%s: the advisor's MCP token: %d, want 200", c.name, r.Status)
			}
		}

		opened := orgVersionField(t, owner.get(userPath))
		owner.post(userPath, url.Values{"updatedAt": {opened}, "role": {"technician"}, "developer": {"on"}}).
			want(t, "make a technician", http.StatusSeeOther, orgPath)
		for _, c := range clients {
			c.browser.get(newJob).want(t, c.name+": the next page follows the new role", http.StatusForbidden, "")
			if r := apitest.Call(t, c.base, technicians); r.Status != http.StatusForbidden {
				t.Errorf("%s: the key after the change of role: %d, want 403", c.name, r.Status)
			}
		}
		p = owner.post(userPath, url.Values{"updatedAt": {opened}, "role": {"admin"}})
		p.want(t, "stale change", http.StatusConflict, "", "Someone else changed this", `<option value="technician" selected>`)

		owner.post(userPath+"/remove", nil).want(t, "remove", http.StatusSeeOther, orgPath)
		for _, c := range clients {
			if p := c.browser.get("/locations/" + loc.ID + "/board"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/login") {
				t.Errorf("%s: the removed user's next page: %d to %q, want 303 to /login", c.name, p.status, p.location)
			}
			if r := apitest.Call(t, c.base, technicians); r.Status != http.StatusUnauthorized {
				t.Errorf("%s: the removed user's key: %d, want 401", c.name, r.Status)
			}
			if r := apitest.Call(t, c.base, mcpInit); r.Status != http.StatusUnauthorized {
				t.Errorf("%s: the removed user's MCP token: %d, want 401", c.name, r.Status)
			}
		}
		owner.get(userPath).want(t, "the removed user is gone", http.StatusNotFound, "")

		// guard rails
		adminB := newBrowser(t, srv.URL)
		adminB.login("admin@example.com", testPassword, "").want(t, "the admin signs in", http.StatusSeeOther, "/")
		bossPath := "/organisation/users/" + boss.ID
		adminB.get(bossPath).want(t, "an admin sees an owner", http.StatusOK, "", "only an owner can change")
		adminB.post(bossPath, url.Values{"updatedAt": {ver(boss.UpdatedAt)}, "role": {"advisor"}}).
			want(t, "an admin demotes an owner", http.StatusUnprocessableEntity, "", "Only an owner")
		adminB.post(bossPath+"/remove", nil).want(t, "an admin removes an owner", http.StatusUnprocessableEntity, "", "Only an owner can remove")
		adminB.post("/organisation/users", url.Values{"email": {"o2@example.com"}, "role": {"owner"}}).
			want(t, "an admin invites an owner", http.StatusUnprocessableEntity, "", "Only an owner")
		adminPath := "/organisation/users/" + admin.ID
		adminB.post(adminPath+"/remove", nil).want(t, "remove yourself", http.StatusUnprocessableEntity, "", "cannot remove yourself")
		adminB.post(adminPath, url.Values{"updatedAt": {ver(admin.UpdatedAt)}, "role": {"owner"}}).
			want(t, "an admin makes themself owner", http.StatusUnprocessableEntity, "", "Only an owner")

		owner.post("/organisation/users/"+org.Owner.ID+"/remove", nil).want(t, "remove the other owner", http.StatusSeeOther, orgPath)
		owner.post(bossPath, url.Values{"updatedAt": {ver(boss.UpdatedAt)}, "role": {"admin"}}).
			want(t, "the last owner steps down", http.StatusUnprocessableEntity, "", "only owner")
		if u, _ := w.st.User(ctx, boss.ID); u.Role != workshop.RoleOwner {
			t.Errorf("the last owner's role = %s, want owner", u.Role)
		}
	})
}
