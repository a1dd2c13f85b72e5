package workshop

import "testing"

// TestActorMayWorkStep covers every branch: a role that writes jobs, the
// technician the step is assigned to, another technician, a user who
// works as no technician.
func TestActorMayWorkStep(t *testing.T) {
	t.Parallel()
	assigned := Step{TechIDs: []string{"tec_a", "tec_b"}}
	for _, tc := range []struct {
		name  string
		actor Actor
		step  Step
		want  bool
	}{
		{"owner", Actor{Role: RoleOwner}, Step{}, true},
		{"admin", Actor{Role: RoleAdmin}, Step{}, true},
		{"advisor on anyone's step", Actor{Role: RoleAdvisor}, assigned, true},
		{"advisor who is also a technician", Actor{Role: RoleAdvisor, TechnicianID: "tec_z"}, assigned, true},
		{"technician assigned", Actor{Role: RoleTechnician, TechnicianID: "tec_b"}, assigned, true},
		{"technician not assigned", Actor{Role: RoleTechnician, TechnicianID: "tec_c"}, assigned, false},
		{"technician on an unassigned step", Actor{Role: RoleTechnician, TechnicianID: "tec_a"}, Step{}, false},
		{"technician role working as no technician", Actor{Role: RoleTechnician}, Step{TechIDs: []string{""}}, false},
	} {
		if got := tc.actor.MayWorkStep(tc.step); got != tc.want {
			t.Errorf("%s: MayWorkStep = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestActorMayClock covers every branch: attendance:write clocks anyone,
// a user clocks the technician they work as, and nobody else.
func TestActorMayClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		actor  Actor
		techID string
		want   bool
	}{
		{"owner clocks anyone", Actor{Role: RoleOwner}, "tec_a", true},
		{"admin clocks anyone", Actor{Role: RoleAdmin}, "tec_a", true},
		{"advisor clocks anyone", Actor{Role: RoleAdvisor}, "tec_a", true},
		{"technician clocks themself", Actor{Role: RoleTechnician, TechnicianID: "tec_a"}, "tec_a", true},
		{"technician clocks another", Actor{Role: RoleTechnician, TechnicianID: "tec_a"}, "tec_b", false},
		{"technician working as no technician", Actor{Role: RoleTechnician}, "", false},
		{"technician sends no technician", Actor{Role: RoleTechnician, TechnicianID: "tec_a"}, "", false},
	} {
		if got := tc.actor.MayClock(tc.techID); got != tc.want {
			t.Errorf("%s: MayClock(%q) = %v, want %v", tc.name, tc.techID, got, tc.want)
		}
	}
}
