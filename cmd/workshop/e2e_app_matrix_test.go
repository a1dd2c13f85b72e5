package main

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// appAction is one thing the application lets a user do (a page to read
// or a form to send), and the roles that may. Each part of the
// application adds its actions to appActions from its own test file.
type appAction struct {
	name   string
	method string
	path   func(m *matrixWorld) string
	form   func(m *matrixWorld) url.Values // nil: none (GET)
	// allowed are the roles that may; the others are refused with 403.
	allowed []workshop.Role
	// developer: only users with developer access may, whatever the role.
	developer bool
}

// appActions is every action of the application.
var appActions []appAction

// matrixWorld is an organisation with a user of each role, a
// technician the technician user works as, another technician, a bay,
// and a job with a pending step assigned to the technician user.
type matrixWorld struct {
	w        *testWorld
	org      *testOrg
	loc      workshop.Location
	users    map[workshop.Role]workshop.User
	tech     workshop.Technician // the technician user works as this one
	other    workshop.Technician
	bay      workshop.Bay
	job      workshop.Job
	step     workshop.Step
	catalog  string        // a catalog item's service code
	advisorD workshop.User // an advisor with developer access
}

var (
	everyRole   = workshop.Roles
	jobWriters  = []workshop.Role{workshop.RoleOwner, workshop.RoleAdmin, workshop.RoleAdvisor}
	adminsOnly  = []workshop.Role{workshop.RoleOwner, workshop.RoleAdmin}
	deskActions = []appAction{
		{name: "board", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/board" }, allowed: everyRole},
		{name: "find jobs", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/jobs" }, allowed: everyRole},
		{name: "job page", method: "GET", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID }, allowed: everyRole},
		{name: "my work", method: "GET", path: func(*matrixWorld) string { return "/my/work" }, allowed: everyRole},
		{name: "new job page", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/jobs/new" }, allowed: jobWriters},
		{name: "create job", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/jobs/new" },
			form: func(*matrixWorld) url.Values { return url.Values{"kind": {"walk_in"}} }, allowed: jobWriters},
		{name: "edit job", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/edit" },
			form: func(*matrixWorld) url.Values { return url.Values{"priority": {"high"}} }, allowed: jobWriters},
		{name: "add step", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/steps" },
			form: func(*matrixWorld) url.Values { return url.Values{"label": {"Wash"}, "estimatedDuration": {"10"}} }, allowed: jobWriters},
		{name: "assign step", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/steps/" + m.step.ID + "/assign" },
			form: func(m *matrixWorld) url.Values { return url.Values{"techIds": {m.tech.ID}} }, allowed: jobWriters},
		// the technician user may start their own step (workshop.Actor.MayWorkStep)
		{name: "start own step", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/steps/" + m.step.ID + "/start" },
			form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: everyRole},
		{name: "deliver job", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/deliver" },
			form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: jobWriters},
		{name: "cancel job", method: "POST", path: func(m *matrixWorld) string { return "/jobs/" + m.job.ID + "/cancel" },
			form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: jobWriters},
	}
)

func init() { appActions = append(appActions, deskActions...) }

func newMatrixWorld(t *testing.T, databaseURL string) *matrixWorld {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, databaseURL)
	m := &matrixWorld{w: w, org: w.org("Matrix Motors", "pro", 1), users: map[workshop.Role]workshop.User{}}
	m.loc = m.org.Locations[0]
	for _, role := range workshop.Roles {
		m.users[role] = appUser(t, w, m.org.ID, string(role)+"@matrix.example", role, testPassword)
	}
	dev, err := w.op.AddUser(ctx, operator.UserRequest{OrgID: m.org.ID, Email: "dev-advisor@matrix.example",
		Role: workshop.RoleAdvisor, Developer: true, Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	m.advisorD = dev
	if m.tech, err = w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: m.loc.ID, Name: "Jonas", WIPLimit: 2,
		UserID: m.users[workshop.RoleTechnician].ID}); err != nil {
		t.Fatal(err)
	}
	if m.other, err = w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: m.loc.ID, Name: "Aylin", WIPLimit: 2}); err != nil {
		t.Fatal(err)
	}
	if m.bay, err = w.op.CreateBay(ctx, m.loc.ID, "Bay 1", nil, nil); err != nil {
		t.Fatal(err)
	}
	m.catalog = "OIL"
	w.catalogItem(m.org.ID, m.loc.ID, m.catalog, "Oil change", 30)
	m.job = w.job(m.org.ID, m.loc.ID)
	m.step = w.step(m.org.ID, m.job.ID)
	m.step = assignForMatrix(t, w, m)
	return m
}

// TestAppAuthorizationMatrix sends every action of the application as
// every role (and as an advisor with developer access): the roles that
// may are never refused, the others always are (403), and nobody ever
// gets a 5xx.
func TestAppAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		m := newMatrixWorld(t, db.URL)
		srv := startServer(t, db.URL)
		t.Logf("%d actions, each sent by %d users", len(appActions), len(workshop.Roles)+1)
		type actor struct {
			name string
			user workshop.User
		}
		actors := []actor{{"advisor with developer access", m.advisorD}}
		for _, role := range workshop.Roles {
			actors = append(actors, actor{string(role), m.users[role]})
		}
		for _, ac := range actors {
			b := newBrowser(t, srv.URL)
			b.login(ac.user.Email, testPassword, "").want(t, ac.name+" signs in", http.StatusSeeOther, "/")
			// refusals first: an allowed write may change what a later action finds
			for _, pass := range []bool{false, true} {
				for _, a := range appActions {
					may := slices.Contains(a.allowed, ac.user.Role) && (!a.developer || ac.user.HasDeveloperAccess())
					if may != pass {
						continue
					}
					var form url.Values
					if a.form != nil {
						form = a.form(m)
					}
					p := b.do(a.method, a.path(m), form, nil)
					switch {
					case p.status >= 500:
						t.Errorf("%s as %s: status %d, a fault of the server", a.name, ac.name, p.status)
					case may && p.status == http.StatusForbidden:
						t.Errorf("%s as %s: got 403, want it allowed", a.name, ac.name)
					case !may && p.status != http.StatusForbidden:
						t.Errorf("%s as %s: got %d, want 403", a.name, ac.name, p.status)
					}
				}
			}
		}
	})
}

// assignForMatrix gives the world's step to the technician the
// technician user works as.
func assignForMatrix(t *testing.T, w *testWorld, m *matrixWorld) workshop.Step {
	t.Helper()
	techs := []string{m.tech.ID}
	st, err := w.st.PatchStep(context.Background(), store.Visibility{OrgID: m.org.ID}, m.job.ID, m.step.ID,
		store.StepPatch{UpdatedAt: m.step.UpdatedAt, TechIDs: &techs}, workshop.MicrosOf(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
