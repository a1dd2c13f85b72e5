package workshop_test

import (
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The fields of technicians, bays and catalog items are checked by one
// rule each, naming the field at fault.
func TestResourceChecks(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", workshop.MaxNameLength+1)
	many := make([]string, workshop.MaxListEntries+1)
	tech := workshop.Technician{Name: "Jonas", WIPLimit: 2, Status: "available", Skills: []string{"ev"}}
	bay := workshop.Bay{Name: "Lift 1", Equipment: []string{"lift"}}
	item := workshop.CatalogItem{ServiceCode: "OIL-1.a_b", Name: "Oil", EstimatedDuration: 30}
	for _, tc := range []struct {
		name  string
		err   error
		field string // "": valid
	}{
		{"a technician", workshop.CheckTechnician(tech), ""},
		{"a blank name", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.Name = " \t" })), "name"},
		{"a name too long", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.Name = long })), "name"},
		{"a limit of 0", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.WIPLimit = 0 })), "wipLimit"},
		{"a limit of 20", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.WIPLimit = 20 })), ""},
		{"a limit of 21", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.WIPLimit = 21 })), "wipLimit"},
		{"an unknown status", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.Status = "asleep" })), "status"},
		{"too many skills", workshop.CheckTechnician(with(tech, func(t *workshop.Technician) { t.Skills = many })), "skills"},
		{"a bay", workshop.CheckBay(bay), ""},
		{"a bay's service too long", workshop.CheckBay(with(bay, func(b *workshop.Bay) { b.Services = []string{long} })), "services"},
		{"an item", workshop.CheckCatalogItem(item), ""},
		{"a code with a space", workshop.CheckCatalogItem(with(item, func(i *workshop.CatalogItem) { i.ServiceCode = "OIL 1" })), "serviceCode"},
		{"a code starting with a dot", workshop.CheckCatalogItem(with(item, func(i *workshop.CatalogItem) { i.ServiceCode = ".OIL" })), "serviceCode"},
		{"a week", workshop.CheckCatalogItem(with(item, func(i *workshop.CatalogItem) { i.EstimatedDuration = 10080 })), ""},
		{"over a week", workshop.CheckCatalogItem(with(item, func(i *workshop.CatalogItem) { i.EstimatedDuration = 10081 })), "estimatedDuration"},
	} {
		got := ""
		if tc.err != nil {
			if workshop.ErrorCode(tc.err) != workshop.CodeValidationFailed {
				t.Errorf("%s: error %v, want validation_failed", tc.name, tc.err)
			}
			got = tc.err.(*workshop.Error).Field
		}
		if got != tc.field {
			t.Errorf("%s: field at fault %q (%v), want %q", tc.name, got, tc.err, tc.field)
		}
	}
}

// A user works as a technician only with the technician role in the
// technician's organisation.
func TestCheckTechnicianUser(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		user *workshop.User
		ok   bool
	}{
		{"a technician of the organisation", &workshop.User{OrgID: "org_a", Role: workshop.RoleTechnician}, true},
		{"an advisor", &workshop.User{OrgID: "org_a", Role: workshop.RoleAdvisor}, false},
		{"another organisation's technician", &workshop.User{OrgID: "org_b", Role: workshop.RoleTechnician}, false},
		{"nobody", nil, false},
	} {
		if err := workshop.CheckTechnicianUser(tc.user, "org_a", "usr_1"); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func with[T any](v T, change func(*T)) T {
	change(&v)
	return v
}
