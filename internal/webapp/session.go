package webapp

import (
	"context"
	"net"
	"net/http"
	"net/url"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// sessionCookie holds the session's token; the database keeps only its
// SHA-256 (the session id).
const sessionCookie = "workshop_session"

type sessionKey struct{}

// withSession reads the request's session, if it has a live one, into the
// request's context. Every request reads it from the database, so a
// sign-out, a password change, a removed user or a changed role made by
// any process holds on the next request.
func (a *App) withSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		if err != nil || c.Value == "" {
			next.ServeHTTP(w, r)
			return
		}
		si, err := a.store.Session(r.Context(), workshop.HashSecret(c.Value))
		switch {
		case workshop.ErrorCode(err) == workshop.CodeNotFound:
			clearSessionCookie(w, r)
		case err != nil:
			a.fail(w, r, err)
			return
		default:
			r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, &si))
		}
		next.ServeHTTP(w, r)
	})
}

// sessionOf is the request's live session, or nil.
func sessionOf(r *http.Request) *store.SignedIn {
	si, _ := r.Context().Value(sessionKey{}).(*store.SignedIn)
	return si
}

// member serves h to a signed-in user acting in an organisation: others
// go to sign in (and come back) or to pick their organisation.
func (a *App) member(h memberFunc) http.Handler {
	return a.serve(func(w http.ResponseWriter, r *http.Request) error {
		si := sessionOf(r)
		switch {
		case si == nil:
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		case si.UserID == "":
			http.Redirect(w, r, "/orgs", http.StatusSeeOther)
		default:
			return h(w, r, si)
		}
		return nil
	})
}

// startSession signs the browser in with the users it proved (the one to
// act as, when there is just one) and ends the session it had, so that a
// session id known before signing in is worth nothing after it.
func (a *App) startSession(w http.ResponseWriter, r *http.Request, members []store.Member) error {
	token := workshop.NewSecret("wss_")
	now := workshop.MicrosOf(a.now())
	sess := store.Session{ID: workshop.HashSecret(token), CreatedAt: now, LastSeenAt: now}
	for _, m := range members {
		sess.Choices = append(sess.Choices, store.ChoiceFor(m))
	}
	if len(members) == 1 {
		sess.UserID = members[0].User.ID
	}
	var previous string
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		previous = workshop.HashSecret(c.Value)
	}
	if err := a.store.CreateSession(r.Context(), sess, previous); err != nil {
		return err
	}
	http.SetCookie(w, sessionCookieOf(r, token, 0))
	return nil
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, sessionCookieOf(r, "", -1))
}

// sessionCookieOf is the session cookie: HttpOnly, SameSite=Lax, and
// Secure unless the request came over plain http to a loopback address.
// It has no expiry: the server ends idle sessions.
func sessionCookieOf(r *http.Request, token string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: token, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: !plainLoopback(r)}
}

// plainLoopback tells whether the request came over plain http to this
// process on a loopback address for a loopback host name: a browser on
// the same machine, where a Secure cookie would not be sent back. Behind a
// TLS-terminating proxy on loopback the Host is the public name, and the
// cookie stays Secure.
func plainLoopback(r *http.Request) bool {
	if r.TLS != nil {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok || !local.IP.IsLoopback() {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
