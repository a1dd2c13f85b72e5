package webapp

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// maxFormBytes bounds a posted form: every form here is a few fields.
const maxFormBytes = 64 << 10

// parseForm reads a posted form; false (and a 400 page) when it cannot.
func (a *App) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		a.message(w, r, http.StatusBadRequest, "Bad request", "The form could not be read. Reload the page and send it again.")
		return false
	}
	return true
}

// root sends a visitor to sign in, to pick an organisation, or to the
// board of the organisation's first location.
func (a *App) root(w http.ResponseWriter, r *http.Request) {
	si := sessionOf(r)
	switch {
	case si == nil:
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	case si.UserID == "":
		http.Redirect(w, r, "/orgs", http.StatusSeeOther)
		return
	}
	h, err := a.headerOf(r, si, "")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if len(h.Locations) == 0 {
		a.render(w, r, http.StatusOK, "message", view{Header: h, Data: map[string]string{"Title": "No location yet",
			"Text": "This organisation has no location yet, so there is no board to show."}})
		return
	}
	http.Redirect(w, r, boardPath(h.Locations[0].ID), http.StatusSeeOther)
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	f := form{Values: map[string]string{"next": r.URL.Query().Get("next")}, Errors: map[string]string{}}
	a.render(w, r, http.StatusOK, "login", view{Form: f})
}

// wrongCredentials is the one message for a wrong email and a wrong
// password alike: it must not tell which emails have users.
const wrongCredentials = "Wrong email or password."

// login checks an email and password against every user with the email
// (one per organisation); the users whose password it is are the ones the
// session may act as.
func (a *App) login(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	f := formOf(r, "email", "password", "next")
	email, password := strings.TrimSpace(f.Values["email"]), f.Values["password"]
	f.Values["password"] = "" // never sent back
	if email == "" {
		f.Errors["email"] = "Enter your email."
	}
	if password == "" {
		f.Errors["password"] = "Enter your password."
	}
	if len(f.Errors) > 0 {
		a.render(w, r, http.StatusUnprocessableEntity, "login", view{Form: f})
		return
	}
	ctx := r.Context()
	if until, locked, err := a.store.LoginLockedUntil(ctx, email); err != nil {
		a.fail(w, r, err)
		return
	} else if locked {
		minutes := int(math.Ceil(until.Time().Sub(a.now()).Minutes()))
		f.Errors[""] = fmt.Sprintf("Too many failed sign-ins for this email: signing in with it is locked for %d more minute%s.",
			minutes, plural(minutes))
		a.render(w, r, http.StatusTooManyRequests, "login", view{Form: f})
		return
	}
	members, err := a.store.MembersByEmail(ctx, email)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	matched := passwordMatches(members, password)
	if len(matched) == 0 {
		if _, err := a.store.RecordLoginFailure(ctx, email); err != nil {
			a.fail(w, r, err)
			return
		}
		f.Errors[""] = wrongCredentials
		a.render(w, r, http.StatusUnauthorized, "login", view{Form: f})
		return
	}
	if err := a.startSession(w, r, matched); err != nil {
		a.fail(w, r, err)
		return
	}
	next, ok := localPath(f.Values["next"])
	switch {
	case len(matched) > 1:
		http.Redirect(w, r, "/orgs?next="+url.QueryEscape(next), http.StatusSeeOther)
	case ok:
		http.Redirect(w, r, next, http.StatusSeeOther)
	default:
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// passwordMatches are the members whose password it is. With no member,
// one hash is still checked: a wrong email takes as long as a wrong
// password.
func passwordMatches(members []store.Member, password string) []store.Member {
	if len(members) == 0 {
		workshop.SpendPasswordCheck(password)
	}
	var out []store.Member
	for _, m := range members {
		if workshop.PasswordMatches(m.User.PasswordHash, password) {
			out = append(out, m)
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// localPath is next when it is a path on this site, which a redirect may
// safely go to. "//host" and "/\host" are other sites to a browser, and
// browsers drop tabs and line breaks from URLs ("/\t/host" is "//host").
func localPath(next string) (string, bool) {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, `\`) {
		return "", false
	}
	for _, c := range next {
		if c < 0x20 || c == 0x7f {
			return "", false
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "", false
	}
	return next, true
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if si := sessionOf(r); si != nil {
		if err := a.store.DeleteSession(r.Context(), si.ID); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	clearSessionCookie(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
