package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// organisationRoutes serves the organisation: locations, users, plan (issue 20, part 6).
func (a *App) organisationRoutes(mux *http.ServeMux) {
	mux.Handle("GET /organisation", a.member(a.organisationAdmin(a.organisationPage)))
	mux.Handle("GET /organisation/locations/new", a.member(a.organisationAdmin(a.newOrgLocationPage)))
	mux.Handle("POST /organisation/locations/new", a.member(a.organisationAdmin(a.createOrgLocation)))
	mux.Handle("GET /organisation/locations/{locationID}", a.member(a.organisationAdmin(a.orgLocationPage)))
	mux.Handle("POST /organisation/locations/{locationID}", a.member(a.organisationAdmin(a.editOrgLocation)))
	mux.Handle("POST /organisation/users", a.member(a.organisationAdmin(a.inviteUser)))
	mux.Handle("GET /organisation/users/{userID}", a.member(a.organisationAdmin(a.orgUserPage)))
	mux.Handle("POST /organisation/users/{userID}", a.member(a.organisationAdmin(a.changeUser)))
	mux.Handle("POST /organisation/users/{userID}/invite", a.member(a.organisationAdmin(a.reinviteUser)))
	mux.Handle("POST /organisation/users/{userID}/remove", a.member(a.organisationAdmin(a.removeUser)))
}

const organisationPath = "/organisation"

// orgAdmin is an organisation page as an owner or admin sees it.
type orgAdmin struct {
	si     *store.SignedIn
	header *header
}

func (o orgAdmin) orgID() string { return o.si.Member.Org.ID }

// organisationAdmin serves h to owners and admins only (403 for the other roles),
// with the form of a post read.
func (a *App) organisationAdmin(h func(http.ResponseWriter, *http.Request, orgAdmin) error) memberFunc {
	return func(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
		hd, err := a.headerOf(r, si, "")
		if err != nil {
			return err
		}
		if !isAdmin(si) {
			return messageError(http.StatusForbidden, hd, "Refused", "Only the organisation's owners and admins manage its locations and users.")
		}
		if err := parseForm(w, r); err != nil {
			return err
		}
		return h(w, r, orgAdmin{si: si, header: hd})
	}
}

// orgPageData is the organisation's page.
type orgPageData struct {
	Org       workshop.Org
	Locations []workshop.Location
	Users     []orgUserRow
	Invite    form
	Roles     []option
	// Invited is the user just invited (or invited again) with the link,
	// shown this once: only its hash is stored.
	Invited *inviteShown
}

type inviteShown struct{ Email, Link string }

// orgUserRow is a user in the organisation's list.
type orgUserRow struct {
	store.OrgUser
	RoleLabel string
}

func (a *App) organisationPage(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	return a.renderOrganisation(w, r, o, http.StatusOK, orgInviteForm(), nil)
}

// orgInviteForm is the empty invite form: most users invited are advisors.
func orgInviteForm() form {
	return form{Values: map[string]string{"role": string(workshop.RoleAdvisor)}, Errors: map[string]string{}}
}

// renderOrganisation writes the organisation's page with the invite form f.
func (a *App) renderOrganisation(w http.ResponseWriter, r *http.Request, o orgAdmin, status int, f form, inv *inviteShown) error {
	users, err := a.store.OrgUsers(r.Context(), o.orgID())
	if err != nil {
		return err
	}
	rows := make([]orgUserRow, len(users))
	for i, u := range users {
		rows[i] = orgUserRow{OrgUser: u, RoleLabel: orgRoleLabels[u.Role]}
	}
	p := orgPageData{Org: o.si.Member.Org, Locations: o.header.Locations, Users: rows, Invite: f,
		Roles: orgRoleOptions(o.si.Member.User, workshop.Role(f.Values["role"])), Invited: inv}
	pushAddress(w, r, organisationPath)
	return a.render(w, r, status, "organisation", view{Header: o.header, Data: p})
}

// pushAddress tells htmx the address of the page a post answers with (the
// invite link, a refusal): it would put the post's own path in the
// address bar, which a reload cannot GET.
func pushAddress(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method == http.MethodPost {
		w.Header().Set("HX-Push-Url", path)
	}
}
