package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// wantSecurityHeaders checks one answer against contract section 7: a
// Content-Security-Policy whose scripts exclude 'unsafe-inline' and that
// no site may frame, nosniff, and a same-origin (or no) referrer.
func wantSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	scripts := ""
	for _, d := range strings.Split(csp, ";") {
		d = strings.TrimSpace(d)
		if strings.HasPrefix(d, "script-src ") || (scripts == "" && strings.HasPrefix(d, "default-src ")) {
			scripts = d
		}
	}
	if scripts == "" || strings.Contains(scripts, "'unsafe-inline'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("%s: Content-Security-Policy %q, want scripts without 'unsafe-inline' and frame-ancestors 'none'", what, csp)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q, want nosniff", what, got)
	}
	if got := h.Get("Referrer-Policy"); got != "same-origin" && got != "no-referrer" {
		t.Errorf("%s: Referrer-Policy %q, want same-origin or no-referrer", what, got)
	}
}

// TestAppSecurityHeaders sends every action of the application, signed
// out and as an owner with developer access, and the answers no action
// lists (sign-in, assets, the reference at /docs, a missing page, a
// refused cross-origin post, the board's event stream): each carries the
// security headers, whatever its status.
func TestAppSecurityHeaders(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	m := newMatrixWorld(t, db)
	srv := startServer(t, db)
	owner := newBrowser(t, srv.URL)
	owner.login(m.users[workshop.RoleOwner].Email, testPassword, "").want(t, "owner signs in", http.StatusSeeOther, "/")
	dev := newBrowser(t, srv.URL)
	dev.login(m.advisorD.Email, testPassword, "").want(t, "developer signs in", http.StatusSeeOther, "/")
	signedOut := newBrowser(t, srv.URL)
	for _, a := range appActions {
		var form url.Values
		if a.form != nil {
			form = a.form(m)
		}
		for who, b := range map[string]*browser{"signed out": signedOut, "owner": owner, "developer": dev} {
			p := b.do(a.method, a.path(m), form, nil)
			wantSecurityHeaders(t, a.name+" ("+who+", "+http.StatusText(p.status)+")", p.header)
		}
	}
	home := signedOut.get("/login")
	asset := strings.SplitN(strings.SplitN(home.body, `href="/static/`, 2)[1], `"`, 2)[0]
	for _, path := range []string{"/", "/login", "/static/" + asset, "/static/missing.css", "/no/such/page", "/setup/nope",
		"/invite/nope", "/docs", "/docs/", "/docs/LICENSE-redoc.txt", "/docs/missing"} {
		wantSecurityHeaders(t, "GET "+path, signedOut.get(path).header)
	}
	refused := owner.do(http.MethodPost, "/logout", url.Values{}, http.Header{"Origin": {"https://elsewhere.example"}, "Sec-Fetch-Site": {"cross-site"}})
	if refused.status != http.StatusForbidden {
		t.Errorf("a cross-origin post: status %d, want 403", refused.status)
	}
	wantSecurityHeaders(t, "a refused cross-origin post", refused.header)

	// The event stream's headers come before its first event.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/locations/"+m.loc.ID+"/board/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := owner.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	wantSecurityHeaders(t, "the board's event stream", res.Header)
}
