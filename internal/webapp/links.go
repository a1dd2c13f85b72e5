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

func (a *App) setupPage(w http.ResponseWriter, r *http.Request) {
	if !a.setupOpen(w, r) {
		return
	}
	f := form{Values: map[string]string{"currency": "EUR"}, Errors: map[string]string{}}
	a.render(w, r, http.StatusOK, "setup", view{Form: f})
}

// setupOpen answers 404 unless the request's setup link works.
func (a *App) setupOpen(w http.ResponseWriter, r *http.Request) bool {
	open, err := a.store.SetupOpen(r.Context(), workshop.HashSecret(r.PathValue("token")))
	if err != nil {
		a.fail(w, r, err)
		return false
	}
	if !open {
		a.message(w, r, http.StatusNotFound, "Setup link not valid", "This setup link is used, expired or unknown.")
	}
	return open
}

// setup makes the first organisation, its location and owner, and signs
// the owner in.
func (a *App) setup(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) || !a.setupOpen(w, r) {
		return
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
		a.render(w, r, http.StatusUnprocessableEntity, "setup", view{Form: f})
		return
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		a.message(w, r, http.StatusNotFound, "Setup link not valid", "This setup link is used, expired or unknown.")
		return
	case err != nil:
		a.fail(w, r, err)
		return
	}
	a.signInAndGoHome(w, r, store.Member{User: owner})
}

func (a *App) signInAndGoHome(w http.ResponseWriter, r *http.Request, m store.Member) {
	if err := a.startSession(w, r, []store.Member{m}); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (a *App) invitePage(w http.ResponseWriter, r *http.Request) {
	m, ok := a.invitee(w, r)
	if ok {
		a.render(w, r, http.StatusOK, "invite", view{Data: m})
	}
}

// invitee is the member of the request's invite link; false (and a 404
// page) when the link does not work.
func (a *App) invitee(w http.ResponseWriter, r *http.Request) (store.Member, bool) {
	m, err := a.store.Invitee(r.Context(), workshop.HashSecret(r.PathValue("token")))
	switch {
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		a.message(w, r, http.StatusNotFound, "Invite not valid", "This invite link is used, expired or unknown. Ask for a new one.")
		return m, false
	case err != nil:
		a.fail(w, r, err)
		return m, false
	}
	return m, true
}

// acceptInvite sets the invited user's password and signs them in.
func (a *App) acceptInvite(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	m, ok := a.invitee(w, r)
	if !ok {
		return
	}
	f := formOf(r, "password", "confirm")
	password, confirm := f.Values["password"], f.Values["confirm"]
	f.Values["password"], f.Values["confirm"] = "", ""
	if !f.invalid(workshop.CheckPasswordRule("password", password)) && confirm != password {
		f.Errors["confirm"] = "The two passwords differ."
	}
	if len(f.Errors) > 0 {
		a.render(w, r, http.StatusUnprocessableEntity, "invite", view{Form: f, Data: m})
		return
	}
	m, err := a.store.AcceptInvite(r.Context(), workshop.HashSecret(r.PathValue("token")), workshop.HashPassword(password))
	if workshop.ErrorCode(err) == workshop.CodeNotFound { // used up by a request at the same moment
		a.message(w, r, http.StatusNotFound, "Invite not valid", "This invite link is used, expired or unknown. Ask for a new one.")
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.signInAndGoHome(w, r, m)
}
