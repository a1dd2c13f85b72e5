package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// browser is a client of the application with a cookie jar that does not
// follow redirects, so that tests see each 303 and where it goes.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer of the application.
type page struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (b *browser) do(method, path string, form url.Values, header http.Header) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{status: res.StatusCode, location: res.Header.Get("Location"), body: string(raw), header: res.Header}
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do("GET", path, nil, nil) }

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	return b.do("POST", path, form, nil)
}

func (b *browser) login(email, password, next string) page {
	b.t.Helper()
	return b.post("/login", url.Values{"email": {email}, "password": {password}, "next": {next}})
}

// sessionToken is the session cookie the browser holds, "" when none.
func (b *browser) sessionToken() string {
	u, _ := url.Parse(b.base)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "workshop_session" {
			return c.Value
		}
	}
	return ""
}

// want fails the test unless the page has the status, the redirect target
// (when want.location is set) and every text.
// wantNot fails the test for each of texts the page has.
func (p page) wantNot(t *testing.T, step string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(p.body, s) {
			t.Errorf("%s: the page has %q; body %.600s", step, s, p.body)
		}
	}
}

func (p page) want(t *testing.T, step string, status int, location string, texts ...string) {
	t.Helper()
	if p.status != status {
		t.Errorf("%s: status %d, want %d; body %.300s", step, p.status, status, p.body)
	}
	if location != "" && p.location != location {
		t.Errorf("%s: redirect to %q, want %q", step, p.location, location)
	}
	for _, s := range texts {
		if !strings.Contains(p.body, s) {
			t.Errorf("%s: the page lacks %q; body %.600s", step, s, p.body)
		}
	}
	if p.status >= 500 {
		t.Errorf("%s: a 5xx for input", step)
	}
}

// appUser makes a user with a password.
func appUser(t *testing.T, w *testWorld, orgID, email string, role workshop.Role, password string) workshop.User {
	t.Helper()
	u, err := w.op.AddUser(context.Background(), operator.UserRequest{OrgID: orgID, Email: email, Role: role, Password: password})
	if err != nil {
		t.Fatalf("add user %s: %v", email, err)
	}
	return u
}

const testPassword = "correct horse battery"

func TestAppSignIn(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha <b>Motors</b>", "pro", 2)
		appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		other := w.org("Beta Motors", "pro", 1)
		srv := startServer(t, db.URL)
		board := "/locations/" + a.Locations[0].ID + "/board"

		t.Run("signed out", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.get("/").want(t, "GET /", http.StatusSeeOther, "/login")
			b.get(board).want(t, "a page signed out", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))
			b.get("/login").want(t, "GET /login", http.StatusOK, "", `name="email"`, `name="password"`, `action="/login"`)
			b.get("/no/such/page").want(t, "unknown page", http.StatusNotFound, "", "Not found")
		})

		t.Run("refused sign-ins", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			for _, tc := range []struct {
				name, email, password string
				status                int
				texts                 []string
			}{
				{"wrong password", "advisor@example.com", "not the password", http.StatusUnauthorized, []string{"Wrong email or password."}},
				{"unknown email", "nobody@example.com", testPassword, http.StatusUnauthorized, []string{"Wrong email or password."}},
				{"user without a password", "owner@example.com", testPassword, http.StatusUnauthorized, []string{"Wrong email or password."}},
				{"no email", "", testPassword, http.StatusUnprocessableEntity, []string{"Enter your email.", `id="email-error"`}},
				{"no password", "advisor@example.com", "", http.StatusUnprocessableEntity, []string{"Enter your password.", `value="advisor@example.com"`}},
			} {
				p := b.login(tc.email, tc.password, "")
				p.want(t, tc.name, tc.status, "", tc.texts...)
				if strings.Contains(p.body, tc.password) && tc.password != "" {
					t.Errorf("%s: the page repeats the password", tc.name)
				}
				if b.sessionToken() != "" {
					t.Errorf("%s: a session cookie was set", tc.name)
				}
			}
			b.do("POST", "/login", nil, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}).
				want(t, "an empty body", http.StatusUnprocessableEntity, "")
			req := b.do("POST", "/login?x=%zz", url.Values{"email": {"a"}}, nil)
			req.want(t, "a malformed query", http.StatusBadRequest, "")
		})

		t.Run("next goes only to a local path", func(t *testing.T) {
			for _, tc := range []struct{ next, want string }{
				{board + "?x=1", board + "?x=1"},
				{"", "/"},
				{"//evil.example/", "/"},
				{`/\evil.example/`, "/"},
				{"https://evil.example/", "/"},
				{"/\t/evil.example/", "/"},
				{"javascript:alert(1)", "/"},
				{"evil.example", "/"},
			} {
				newBrowser(t, srv.URL).login("advisor@example.com", testPassword, tc.next).want(t, "next "+tc.next, http.StatusSeeOther, tc.want)
			}
		})

		t.Run("session", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.get("/login")
			p := b.login("ADVISOR@example.com", testPassword, "")
			p.want(t, "sign in (email in another case)", http.StatusSeeOther, "/")
			cookie := p.header.Get("Set-Cookie")
			for _, attr := range []string{"HttpOnly", "SameSite=Lax", "Path=/"} {
				if !strings.Contains(cookie, attr) {
					t.Errorf("session cookie %q lacks %s", cookie, attr)
				}
			}
			if strings.Contains(cookie, "Secure") {
				t.Errorf("session cookie %q is Secure on plain-http loopback: the browser would not send it back", cookie)
			}
			b.get("/").want(t, "GET / signed in", http.StatusSeeOther, board)
			b.get(board).want(t, "the board", http.StatusOK, "", html.EscapeString(a.Locations[0].Name), html.EscapeString(a.Locations[1].Name),
				"advisor@example.com", "Alpha &lt;b&gt;Motors&lt;/b&gt;", "All jobs", `action="/logout"`)
			b.get("/locations/"+other.Locations[0].ID+"/board").want(t, "another organisation's board", http.StatusNotFound, "")

			first := b.sessionToken()
			b.login("advisor@example.com", testPassword, "").want(t, "sign in again", http.StatusSeeOther, "/")
			if b.sessionToken() == first {
				t.Error("signing in again kept the session token (fixation)")
			}
			stale := newBrowser(t, srv.URL)
			stale.c.Jar.SetCookies(mustURL(t, srv.URL), []*http.Cookie{{Name: "workshop_session", Value: first}})
			stale.get(board).want(t, "the replaced session", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))

			for name, h := range map[string]http.Header{ // contract section 7
				"cross-origin":                 {"Origin": {"http://evil.example"}},
				"Origin null":                  {"Origin": {"null"}},
				"cross-site":                   {"Sec-Fetch-Site": {"cross-site"}},
				"same-site":                    {"Sec-Fetch-Site": {"same-site"}},
				"only a foreign Referer":       {"Referer": {"https://evil.example/form.html"}},
				"another origin, same-origin?": {"Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"same-origin"}},
			} {
				b.do("POST", "/logout", nil, h).want(t, name+" sign-out", http.StatusForbidden, "")
			}
			b.get(board).want(t, "after refused sign-outs", http.StatusOK, "")
			kept := b.sessionToken()
			b.post("/logout", nil).want(t, "sign out", http.StatusSeeOther, "/login?signed-out=1")
			b.get("/login?signed-out=1").want(t, "the sign-out confirmed", http.StatusOK, "", `role="status">You are signed out.</p>`)
			b.get("/login").wantNot(t, "the sign-in page otherwise", "You are signed out.")
			b.get(board).want(t, "after sign-out", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))
			stale.c.Jar.SetCookies(mustURL(t, srv.URL), []*http.Cookie{{Name: "workshop_session", Value: kept}})
			stale.get(board).want(t, "the signed-out token", http.StatusSeeOther, "/login?next="+url.QueryEscape(board))
		})

		t.Run("cross-origin sign-in", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.do("POST", "/login", url.Values{"email": {"advisor@example.com"}, "password": {testPassword}},
				http.Header{"Origin": {"https://evil.example"}}).want(t, "cross-origin", http.StatusForbidden, "")
			if b.sessionToken() != "" {
				t.Error("a cross-origin sign-in set a session")
			}
		})

		t.Run("Secure cookie for a public host", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/login",
				strings.NewReader(url.Values{"email": {"advisor@example.com"}, "password": {testPassword}}.Encode()))
			req.Host = "workshop.example.com"
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := b.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if c := res.Header.Get("Set-Cookie"); res.StatusCode != http.StatusSeeOther || !strings.Contains(c, "Secure") {
				t.Errorf("sign-in for host workshop.example.com: %d, cookie %q; want 303 and a Secure cookie", res.StatusCode, c)
			}
		})

		t.Run("lock-out", func(t *testing.T) {
			appUser(t, w, a.ID, "locked@example.com", workshop.RoleTechnician, testPassword)
			b := newBrowser(t, srv.URL)
			for i := range workshop.LoginFailureLimit {
				b.login("locked@example.com", "wrong password", "").want(t, "failure "+string(rune('1'+i)), http.StatusUnauthorized, "")
			}
			b.login("locked@example.com", testPassword, "").want(t, "the right password while locked", http.StatusTooManyRequests, "",
				"locked for 15 more minutes")
			b.login("advisor@example.com", testPassword, "").want(t, "another email", http.StatusSeeOther, "/")
		})
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
