package workshop

import (
	"regexp"
	"slices"
	"strings"
)

// The bounds of what the application edits of technicians, bays and
// catalog items; the API's schema holds the same for a catalog put.
const (
	MaxNameLength  = 255   // a technician's, bay's or catalog item's name
	MaxWIPLimit    = 20    // steps a technician works at once
	MaxListEntries = 50    // skills, equipment, services
	MaxDuration    = 10080 // a week, in minutes
)

var serviceCodeRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidServiceCode tells whether s may name a catalog item: 1 to 64
// letters, digits, _, - or ., starting with a letter or digit.
func ValidServiceCode(s string) bool { return serviceCodeRe.MatchString(s) }

// CheckTechnician checks a technician's editable fields: name, skills,
// work-in-progress limit, working hours and status.
func CheckTechnician(t Technician) error {
	var v Validation
	checkName(&v, t.Name)
	checkList(&v, "skills", t.Skills)
	_ = v.Check(CheckWorkingHours(t.WorkingHours))
	if t.WIPLimit < 1 || t.WIPLimit > MaxWIPLimit {
		v.Add("wipLimit", "The work-in-progress limit must be between 1 and %d.", MaxWIPLimit)
	}
	if !slices.Contains(TechnicianStatuses, t.Status) {
		v.Add("status", "Choose a status: %s.", strings.Join(TechnicianStatuses, ", "))
	}
	return v.Err()
}

// CheckTechnicianUser refuses a user (nil: none found) a technician of
// the organisation cannot work as: only a user of that organisation with
// the technician role signs in to work its steps.
func CheckTechnicianUser(u *User, orgID, userID string) error {
	switch {
	case u == nil || u.OrgID != orgID: // another organisation's user is not named
		return Invalid("user", "User %s is not a user with the technician role in the location's organisation.", userID)
	case u.Role != RoleTechnician:
		return Invalid("user", "%s does not have the technician role, which a technician's user needs.", u.Email)
	}
	return nil
}

// CheckBay checks a bay's editable fields.
func CheckBay(b Bay) error {
	var v Validation
	checkName(&v, b.Name)
	checkList(&v, "equipment", b.Equipment)
	checkList(&v, "services", b.Services)
	return v.Err()
}

// CheckCatalogItem checks a catalog item's fields as the API's put does.
func CheckCatalogItem(it CatalogItem) error {
	var v Validation
	if !ValidServiceCode(it.ServiceCode) {
		v.Add("serviceCode", "A service code is 1 to 64 letters, digits, _, - or ., starting with a letter or digit.")
	}
	checkName(&v, it.Name)
	if it.EstimatedDuration < 1 || it.EstimatedDuration > MaxDuration {
		v.Add("estimatedDuration", "The estimate is 1 to %d minutes.", MaxDuration)
	}
	checkList(&v, "requiredSkills", it.RequiredSkills)
	return v.Err()
}

func checkName(v *Validation, name string) { _ = v.Check(CheckName("name", name)) }

func checkList(v *Validation, field string, list []string) {
	if len(list) > MaxListEntries {
		v.Add(field, "At most %d entries, please (this has %d).", MaxListEntries, len(list))
	}
	for _, s := range list {
		if len([]rune(s)) > MaxNameLength {
			v.Add(field, "Each entry is at most %d characters.", MaxNameLength)
			return
		}
	}
}

// InUse refuses deleting a record (what: "technician", "bay", "catalog
// item") that open work still uses; uses says what does, one sentence each.
func InUse(what string, uses []string) error {
	return Errorf(CodeInvalidTransition, "This %s cannot be deleted while it is in use: %s.", what, strings.Join(uses, "; "))
}
