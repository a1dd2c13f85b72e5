package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// orgsPage lets a sign-in that matched users of several organisations
// pick the one to work in, now and later (the organisation switcher).
func (a *App) orgsPage(w http.ResponseWriter, r *http.Request) error {
	si := sessionOf(r)
	if si == nil {
		http.Redirect(w, r, "/login?next=%2Forgs", http.StatusSeeOther)
		return nil
	}
	return a.renderOrgs(w, r, si, http.StatusOK, form{Values: map[string]string{"next": r.URL.Query().Get("next")}, Errors: map[string]string{}})
}

func (a *App) renderOrgs(w http.ResponseWriter, r *http.Request, si *store.SignedIn, status int, f form) error {
	members, err := a.store.SessionMembers(r.Context(), si.Session)
	if err != nil {
		return err
	}
	var h *header
	if si.UserID != "" {
		if h, err = a.headerOf(r, si, ""); err != nil {
			return err
		}
	}
	return a.render(w, r, status, "orgs", view{Header: h, Form: f, Data: map[string]any{"Members": members, "Current": si.UserID}})
}

func (a *App) chooseOrg(w http.ResponseWriter, r *http.Request) error {
	si := sessionOf(r)
	if si == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	f := formOf(r, "user", "next")
	err := a.store.ChooseSessionUser(r.Context(), si.ID, f.Values["user"])
	if workshop.ErrorCode(err) == workshop.CodeNotFound {
		f.Errors["user"] = "Pick one of these organisations."
		return a.renderOrgs(w, r, si, http.StatusUnprocessableEntity, f)
	}
	if err != nil {
		return err
	}
	if next, ok := localPath(f.Values["next"]); ok {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}
