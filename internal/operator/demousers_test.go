package operator_test

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Every Demo gives the demo users new passwords (the earlier ones stop
// working) and adds the users a demo seeded before them lacks.
func TestDemoUsersGetFreshPasswords(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		op := operator.New(st)
		first, err := op.Demo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// As if the demo had been seeded before it had an advisor.
		if _, err := storetest.RawDB(t, db.URL).ExecContext(ctx, `DELETE FROM users WHERE email = 'advisor@demo-motors.example'`); err != nil {
			t.Fatal(err)
		}
		second, err := op.Demo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		roles := map[workshop.Role]bool{}
		for i, u := range second.Users {
			roles[u.Role] = true
			members, err := st.MembersByEmail(ctx, u.Email)
			if err != nil || len(members) != 1 || members[0].User.Role != u.Role {
				t.Fatalf("demo user %s: %v, %v; want one %s", u.Email, members, err, u.Role)
			}
			// The demo technician works as a technician of the demo, so
			// that signing in as them shows steps to work.
			if worksAs := members[0].TechnicianID; (worksAs != "") != (u.Role == workshop.RoleTechnician) {
				t.Errorf("demo user %s (%s) works as technician %q, want one only for the technician", u.Email, u.Role, worksAs)
			}
			hash := members[0].User.PasswordHash
			if !workshop.PasswordMatches(hash, u.Password) || len(u.Password) < workshop.MinPasswordLength {
				t.Errorf("demo user %s: the printed password %q does not sign in", u.Email, u.Password)
			}
			if workshop.PasswordMatches(hash, first.Users[i].Password) {
				t.Errorf("demo user %s: the previous start's password still works", u.Email)
			}
		}
		if len(roles) != 3 || !roles[workshop.RoleOwner] || !roles[workshop.RoleAdvisor] || !roles[workshop.RoleTechnician] {
			t.Errorf("demo users of roles %v, want an owner, an advisor and a technician", roles)
		}
	})
}
