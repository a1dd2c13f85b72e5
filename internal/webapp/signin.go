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

// parseForm reads the form of a post (a GET has none to read); errBadForm
// when it cannot.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return errBadForm
	}
	return nil
}

// root sends a visitor to sign in, to pick an organisation, a technician
// to their own work (contract section 7), anyone else to the board of the
// organisation's first location.
func (a *App) root(w http.ResponseWriter, r *http.Request) error {
	si := sessionOf(r)
	switch {
	case si == nil:
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return nil
	case si.UserID == "":
		http.Redirect(w, r, "/orgs", http.StatusSeeOther)
		return nil
	}
	h, err := a.headerOf(r, si, "")
	if err != nil {
		return err
	}
	if si.Member.User.Role == workshop.RoleTechnician {
		http.Redirect(w, r, myWorkPath, http.StatusSeeOther) // a technician signs in to their own work
		return nil
	}
	if len(h.Locations) == 0 {
		return a.render(w, r, http.StatusOK, "message", view{Header: h, Data: map[string]string{"Title": "No location yet",
			"Text": "This organisation has no location yet, so there is no board to show."}})
	}
	http.Redirect(w, r, boardPath(h.Locations[0].ID), http.StatusSeeOther)
	return nil
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) error {
	f := form{Values: map[string]string{"next": r.URL.Query().Get("next")}, Errors: map[string]string{}}
	return a.render(w, r, http.StatusOK, "login", view{Form: f, Data: map[string]any{"SignedOut": r.URL.RawQuery == signedOutParam}})
}

// wrongCredentials is the one message for a wrong email and a wrong
// password alike: it must not tell which emails have users.
const wrongCredentials = "Wrong email or password."

// login checks an email and password against every user with the email
// (one per organisation); the users whose password it is are the ones the
// session may act as.
func (a *App) login(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
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
		return a.render(w, r, http.StatusUnprocessableEntity, "login", view{Form: f})
	}
	ctx := r.Context()
	if until, locked, err := a.store.LoginLockedUntil(ctx, email); err != nil {
		return err
	} else if locked {
		minutes := int(math.Ceil(until.Time().Sub(a.now()).Minutes()))
		f.Errors[""] = fmt.Sprintf("Too many failed sign-ins for this email: signing in with it is locked for %d more minute%s.",
			minutes, plural(minutes))
		return a.render(w, r, http.StatusTooManyRequests, "login", view{Form: f})
	}
	members, err := a.store.MembersByEmail(ctx, email)
	if err != nil {
		return err
	}
	matched := passwordMatches(members, password)
	if len(matched) == 0 {
		if _, err := a.store.RecordLoginFailure(ctx, email); err != nil {
			return err
		}
		f.Errors[""] = wrongCredentials
		return a.render(w, r, http.StatusUnauthorized, "login", view{Form: f})
	}
	if err := a.startSession(w, r, matched); err != nil {
		return err
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
	return nil
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

func (a *App) logout(w http.ResponseWriter, r *http.Request) error {
	if si := sessionOf(r); si != nil {
		if err := a.store.DeleteSession(r.Context(), si.ID); err != nil {
			return err
		}
	}
	clearSessionCookie(w, r)
	http.Redirect(w, r, "/login?"+signedOutParam, http.StatusSeeOther)
	return nil
}

// signedOutParam marks the sign-in page shown after a sign-out, which
// then says so: the page alone would not tell it from an expired session.
const signedOutParam = "signed-out=1"
