package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The one-time links: first-run setup and invites. A link that is used,
// expired or unknown is a 404 alike, so tokens cannot be probed.

var setupFields = []string{"orgName", "locationName", "timezone", "currency", "email", "password"}

func (a *App) setupPage(w http.ResponseWriter, r *http.Request) error {
	if err := a.setupOpen(r); err != nil {
		return err
	}
	f := form{Values: map[string]string{"currency": "EUR"}, Errors: map[string]string{}}
	return a.render(w, r, http.StatusOK, "setup", view{Form: f})
}

// errSetupLink answers a setup link that is used, expired or unknown.
var errSetupLink = messageError(http.StatusNotFound, nil, "Setup link not valid", "This setup link is used, expired or unknown.")

// errInviteLink answers an invite link that is used, expired or unknown.
var errInviteLink = messageError(http.StatusNotFound, nil, "Invite not valid",
	"This invite link is used, expired or unknown. Ask for a new one.")

// setupOpen is errSetupLink unless the request's setup link works.
func (a *App) setupOpen(r *http.Request) error {
	open, err := a.store.SetupOpen(r.Context(), workshop.HashSecret(r.PathValue("token")))
	if err == nil && !open {
		err = errSetupLink
	}
	return err
}

// setup makes the first organisation, its location and owner, and signs
// the owner in.
func (a *App) setup(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	if err := a.setupOpen(r); err != nil {
		return err
	}
	f := formOf(r, setupFields...)
	password := f.Values["password"]
	f.Values["password"] = ""
	owner, err := a.op.Setup(r.Context(), r.PathValue("token"), operator.SetupRequest{
		OrgName:  f.Values["orgName"],
		Location: operator.LocationFields{Name: f.Values["locationName"], Timezone: f.Values["timezone"], Currency: f.Values["currency"]},
		Email:    f.Values["email"], Password: password,
	})
	switch {
	case f.invalid(err):
		return a.render(w, r, http.StatusUnprocessableEntity, "setup", view{Form: f})
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		return errSetupLink
	case err != nil:
		return err
	}
	return a.signInAndGoHome(w, r, store.Member{User: owner})
}

func (a *App) signInAndGoHome(w http.ResponseWriter, r *http.Request, m store.Member) error {
	if err := a.startSession(w, r, []store.Member{m}); err != nil {
		return err
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

func (a *App) invitePage(w http.ResponseWriter, r *http.Request) error {
	m, err := a.invitee(r)
	if err != nil {
		return err
	}
	return a.render(w, r, http.StatusOK, "invite", view{Data: m})
}

// invitee is the member of the request's invite link; errInviteLink when
// the link does not work.
func (a *App) invitee(r *http.Request) (store.Member, error) {
	m, err := a.store.Invitee(r.Context(), workshop.HashSecret(r.PathValue("token")))
	if workshop.ErrorCode(err) == workshop.CodeNotFound {
		return m, errInviteLink
	}
	return m, err
}

// acceptInvite sets the invited user's password and signs them in.
func (a *App) acceptInvite(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	m, err := a.invitee(r)
	if err != nil {
		return err
	}
	f := formOf(r, "password", "confirm")
	password, confirm := f.Values["password"], f.Values["confirm"]
	f.Values["password"], f.Values["confirm"] = "", ""
	if !f.invalid(workshop.CheckPasswordRule("password", password)) && confirm != password {
		f.Errors["confirm"] = "The two passwords differ."
	}
	if len(f.Errors) > 0 {
		return a.render(w, r, http.StatusUnprocessableEntity, "invite", view{Form: f, Data: m})
	}
	m, err = a.store.AcceptInvite(r.Context(), workshop.HashSecret(r.PathValue("token")), workshop.HashPassword(password))
	if workshop.ErrorCode(err) == workshop.CodeNotFound { // used up by a request at the same moment
		return errInviteLink
	}
	if err != nil {
		return err
	}
	return a.signInAndGoHome(w, r, m)
}
