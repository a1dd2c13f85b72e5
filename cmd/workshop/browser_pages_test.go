package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Every page of the application, as the authorization matrix lists them,
// opened by an owner and by an advisor with developer access: each one
// that answers passes axe-core (no serious or critical violation) and
// logs no console error but its own status.
func TestBrowserEveryPageAccessible(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	m := newMatrixWorld(t, db)
	srv := startServer(t, db)
	for _, email := range []string{m.users[workshop.RoleOwner].Email, m.advisorD.Email} {
		b := newChrome(t)
		b.allowed = func(text string) bool { return strings.Contains(text, "status of 40") }
		b.do(t, "sign in as "+email, append(fillSignIn(srv.URL+"/login", email, testPassword), waitVisible(`h1`))...)
		seen := 0
		for _, a := range appActions {
			if a.method != http.MethodGet || strings.Contains(a.path(m), ".csv") { // a download, not a page
				continue
			}
			path := a.path(m)
			b.do(t, "open "+a.name, navigate(srv.URL+path), waitVisible(`h1`))
			b.checkAccessible(t, a.name+" ("+email+")")
			seen++
		}
		if seen < 20 {
			t.Errorf("%s opened %d pages, want every page of the matrix", email, seen)
		}
	}
}
