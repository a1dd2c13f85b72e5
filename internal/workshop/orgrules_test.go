package workshop

import "testing"

func TestUserGuardRails(t *testing.T) {
	t.Parallel()
	owner := User{ID: "usr_owner", Email: "owner@example.com", Role: RoleOwner}
	owner2 := User{ID: "usr_owner2", Email: "second@example.com", Role: RoleOwner}
	admin := User{ID: "usr_admin", Email: "admin@example.com", Role: RoleAdmin}
	advisor := User{ID: "usr_advisor", Email: "advisor@example.com", Role: RoleAdvisor}
	for _, tc := range []struct {
		name          string
		actor, target User
		role          Role
		owners        int
		wantErr       bool
	}{
		{"owner makes an owner", owner, advisor, RoleOwner, 1, false},
		{"owner demotes another owner", owner, owner2, RoleAdmin, 2, false},
		{"the last owner steps down", owner, owner, RoleAdmin, 1, true},
		{"one of two owners steps down", owner, owner, RoleAdmin, 2, false},
		{"admin makes an owner", admin, advisor, RoleOwner, 1, true},
		{"admin demotes an owner", admin, owner2, RoleAdvisor, 2, true},
		{"admin makes themself owner", admin, admin, RoleOwner, 1, true},
		{"admin changes an advisor", admin, advisor, RoleTechnician, 1, false},
		{"admin changes an owner's developer access only", admin, owner2, RoleOwner, 2, false},
		{"unknown role", owner, advisor, Role("boss"), 1, true},
	} {
		err := CheckUserChange(tc.actor, tc.target, tc.role, tc.owners)
		if (err != nil) != tc.wantErr || err != nil && ErrorCode(err) != CodeValidationFailed {
			t.Errorf("%s: CheckUserChange = %v, want error %v (validation_failed)", tc.name, err, tc.wantErr)
		}
	}
	for _, tc := range []struct {
		name          string
		actor, target User
		owners        int
		wantErr       bool
	}{
		{"owner removes an advisor", owner, advisor, 1, false},
		{"owner removes another owner", owner, owner2, 2, false},
		{"owner removes themself", owner, owner, 2, true},
		{"admin removes an advisor", admin, advisor, 1, false},
		{"admin removes an owner", admin, owner2, 2, true},
		{"the last owner removed", owner2, owner, 1, true},
	} {
		err := CheckUserRemoval(tc.actor, tc.target, tc.owners)
		if (err != nil) != tc.wantErr || err != nil && ErrorCode(err) != CodeValidationFailed {
			t.Errorf("%s: CheckUserRemoval = %v, want error %v (validation_failed)", tc.name, err, tc.wantErr)
		}
	}
}
