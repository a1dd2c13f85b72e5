package webapp

import (
	"net/http"
	"strings"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

var orgRoleLabels = map[workshop.Role]string{workshop.RoleOwner: "Owner", workshop.RoleAdmin: "Admin",
	workshop.RoleAdvisor: "Advisor", workshop.RoleTechnician: "Technician"}

// orgRoleOptions are the roles actor may give (only an owner makes owners),
// chosen selected.
func orgRoleOptions(actor workshop.User, chosen workshop.Role) []option {
	var out []option
	for _, role := range workshop.Roles {
		if workshop.CheckInvite(actor, role, false) != nil {
			continue
		}
		out = append(out, option{Value: string(role), Label: orgRoleLabels[role], Checked: role == chosen})
	}
	return out
}

// inviteUser makes a user without a password and shows the one-time link
// where they choose one. The page is answered directly, not redirected to:
// the link exists only in this answer (the store keeps its hash).
func (a *App) inviteUser(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	f := formOf(r, "email", "role", "developer")
	role := workshop.Role(f.Values["role"])
	err := workshop.CheckInvite(o.si.Member.User, role, false)
	var u workshop.User
	if err == nil {
		u, err = a.op.AddUser(r.Context(), operator.UserRequest{OrgID: o.orgID(), Email: strings.TrimSpace(f.Values["email"]),
			Role: role, Developer: f.Values["developer"] != ""})
	}
	if err != nil {
		if !f.invalid(err) {
			return err
		}
		return a.renderOrganisation(w, r, o, http.StatusUnprocessableEntity, f, nil)
	}
	return a.invite(w, r, o, u, http.StatusCreated)
}

// invite makes an invite link for u and shows it on the organisation's
// page, with an empty invite form.
func (a *App) invite(w http.ResponseWriter, r *http.Request, o orgAdmin, u workshop.User, status int) error {
	out, err := a.op.Invite(r.Context(), u.ID, baseURLOf(r))
	if err != nil {
		return err
	}
	return a.renderOrganisation(w, r, o, status, orgInviteForm(), &inviteShown{Email: u.Email, Link: out.InviteURL})
}

// baseURLOf is where the browser reached the application: invite links
// point there. It is https unless the browser is on this machine over plain
// http, as the session cookie is Secure (behind a TLS-terminating proxy the
// request arrives as http, but the browser's address is https).
func baseURLOf(r *http.Request) string {
	if plainLoopback(r) {
		return "http://" + r.Host
	}
	return "https://" + r.Host
}

// reinviteUser makes a new link for a user who has no password yet (the
// first was lost or expired).
func (a *App) reinviteUser(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	u, err := a.orgUser(r, o)
	if err != nil {
		return err
	}
	if err := workshop.CheckInvite(o.si.Member.User, u.Role, u.PasswordSet); err != nil {
		return a.refuseOnOrgUser(w, r, o, u, err, func(n *orgUserNotices, text string) { n.Invite = text })
	}
	return a.invite(w, r, o, u.User, http.StatusOK)
}

func orgUserPath(id string) string { return organisationPath + "/users/" + id }

// orgUser is the user of the path in the organisation.
func (a *App) orgUser(r *http.Request, o orgAdmin) (store.OrgUser, error) {
	return a.store.OrgUser(r.Context(), o.orgID(), r.PathValue("userID"))
}

// orgUserPageData is a user's page: the role form and removal.
type orgUserPageData struct {
	User      store.OrgUser
	Self      bool
	MayChange bool // an admin does not change an owner
	Roles     []option
	Notices   orgUserNotices
}

// orgUserNotices are refusals of the page's forms without fields.
type orgUserNotices struct{ Remove, Invite string }

func (a *App) orgUserPage(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	u, err := a.orgUser(r, o)
	if err != nil {
		return err
	}
	return a.renderOrgUser(w, r, o, u, http.StatusOK, orgUserForm(u), orgUserNotices{})
}

func orgUserForm(u store.OrgUser) form {
	f := form{Values: map[string]string{"role": string(u.Role), "updatedAt": versionOf(u.UpdatedAt)}, Errors: map[string]string{}}
	if u.DeveloperAccess {
		f.Values["developer"] = "on"
	}
	return f
}

func (a *App) renderOrgUser(w http.ResponseWriter, r *http.Request, o orgAdmin, u store.OrgUser, status int, f form, n orgUserNotices) error {
	actor := o.si.Member.User
	p := orgUserPageData{User: u, Self: u.ID == o.si.Member.User.ID, Notices: n,
		MayChange: actor.Role == workshop.RoleOwner || u.Role != workshop.RoleOwner,
		Roles:     orgRoleOptions(actor, workshop.Role(f.Values["role"]))}
	pushAddress(w, r, orgUserPath(u.ID))
	return a.render(w, r, status, "organisation_user", view{Header: o.header, Form: f, Data: p})
}

// changeUser sets a user's role and developer access against the version
// the form was made from. The user's next request, page or API call, is
// served with the new role.
func (a *App) changeUser(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	u, err := a.orgUser(r, o)
	if err != nil {
		return err
	}
	f := formOf(r, "role", "developer", "updatedAt")
	_, err = a.store.ChangeUser(r.Context(), o.si.Member.User, u.ID, store.UserChange{Role: workshop.Role(f.Values["role"]),
		DeveloperAccess: f.Values["developer"] != "", UpdatedAt: parseVersion(f.Values["updatedAt"])}, workshop.MicrosOf(a.now()))
	if err == nil {
		http.Redirect(w, r, organisationPath, http.StatusSeeOther)
		return nil
	}
	status, known := f.refusal(err, nil)
	if !known {
		return err
	}
	if status == http.StatusConflict || status == http.StatusNotFound {
		cur, err := a.orgUser(r, o)
		if err != nil {
			return err
		}
		u, f = cur, form{Values: orgUserForm(cur).Values, Errors: f.Errors}
	}
	return a.renderOrgUser(w, r, o, u, status, f, orgUserNotices{})
}

// removeUser removes a user: their sessions end, and their API keys and
// MCP tokens are refused, on their next request on every process.
func (a *App) removeUser(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	u, err := a.orgUser(r, o)
	if err != nil {
		return err
	}
	err = a.store.RemoveUser(r.Context(), o.si.Member.User, u.ID, workshop.MicrosOf(a.now()))
	if err == nil {
		http.Redirect(w, r, organisationPath, http.StatusSeeOther)
		return nil
	}
	return a.refuseOnOrgUser(w, r, o, u, err, func(n *orgUserNotices, text string) { n.Remove = text })
}

// refuseOnOrgUser shows the user's page with a refusal of a form without
// fields, put in its place by set.
func (a *App) refuseOnOrgUser(w http.ResponseWriter, r *http.Request, o orgAdmin, u store.OrgUser, err error, set func(*orgUserNotices, string)) error {
	f := form{Values: map[string]string{}, Errors: map[string]string{}} // no fields: the reason goes on top
	status, known := f.refusal(err, nil)
	if !known {
		return err
	}
	var n orgUserNotices
	set(&n, f.Errors[""])
	return a.renderOrgUser(w, r, o, u, status, orgUserForm(u), n)
}
