package workshop

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is one permission a key can carry (contract section 3).
type Scope string

// AllScopes is every scope, in the contract's order.
var AllScopes = []Scope{
	"jobs:read", "jobs:write", "technicians:read", "technicians:write", "bays:read", "bays:write",
	"catalog:read", "catalog:write", "attendance:read", "attendance:write", "board:read", "workshop:read",
	"integrations:read", "integrations:write", "webhooks:read", "webhooks:write",
}

// Role is a user's role in an organisation.
type Role string

const (
	RoleOwner      Role = "owner"
	RoleAdmin      Role = "admin"
	RoleAdvisor    Role = "advisor"
	RoleTechnician Role = "technician"
)

// Roles lists the valid roles.
var Roles = []Role{RoleOwner, RoleAdmin, RoleAdvisor, RoleTechnician}

var roleScopes = map[Role][]Scope{
	RoleOwner: AllScopes,
	RoleAdmin: AllScopes,
	RoleAdvisor: {"jobs:read", "jobs:write", "technicians:read", "bays:read", "catalog:read", "catalog:write",
		"attendance:read", "attendance:write", "board:read", "workshop:read"},
	RoleTechnician: {"jobs:read", "attendance:read"},
}

// Scopes is what the role allows.
func (r Role) Scopes() []Scope { return roleScopes[r] }

// Valid tells whether r is a known role.
func (r Role) Valid() bool { _, ok := roleScopes[r]; return ok }

// Allows tells whether the role allows the scope.
func (r Role) Allows(s Scope) bool { return slices.Contains(roleScopes[r], s) }

// HasDeveloperAccess tells whether a user may create keys and MCP tokens:
// owners and admins always, anyone else only when granted it.
func (u User) HasDeveloperAccess() bool {
	return u.Role == RoleOwner || u.Role == RoleAdmin || u.DeveloperAccess
}

// Plan is an organisation's plan tier.
type Plan string

const (
	PlanFree       Plan = "free"
	PlanStarter    Plan = "starter"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

// Plans lists the valid plans.
var Plans = []Plan{PlanFree, PlanStarter, PlanPro, PlanEnterprise}

// Valid tells whether p is a known plan.
func (p Plan) Valid() bool { return slices.Contains(Plans, p) }

// HasAPIAccess tells whether the plan includes the API: on the free plan it
// is an upgrade.
func (p Plan) HasAPIAccess() bool { return p != PlanFree }

// ParseScopes validates a comma-separated scope list against a role: a
// scope the role lacks is refused, never silently dropped. An empty list
// means every scope the role allows.
func ParseScopes(list string, role Role) ([]Scope, error) {
	if strings.TrimSpace(list) == "" {
		return slices.Clone(role.Scopes()), nil
	}
	var out []Scope
	for _, s := range strings.Split(list, ",") {
		sc := Scope(strings.TrimSpace(s))
		if !slices.Contains(AllScopes, sc) {
			return nil, Invalid("scopes", "Unknown scope %q.", sc)
		}
		if !role.Allows(sc) {
			return nil, Invalid("scopes", "The %s role does not allow the scope %q.", role, sc)
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// CredentialKind tells an API key from an MCP token: each is refused where
// the other belongs.
type CredentialKind string

const (
	KindAPIKey   CredentialKind = "api"
	KindMCPToken CredentialKind = "mcp"
)

// Principal is who is calling: the credential, its organisation and user,
// and what it may do now. Scopes are the key's scopes still allowed by the
// user's current role, so a role change takes effect on the next request.
type Principal struct {
	KeyID         string
	Kind          CredentialKind
	OrgID         string
	UserID        string
	Role          Role
	PlanTier      Plan
	LocationID    string // "" for an org-scoped key
	IntegrationID string // "" when the key is not tied to an integration
	Scopes        []Scope
}

// Has tells whether the principal holds the scope.
func (p *Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }

// Require is insufficient_scope naming the scope when the principal lacks it.
func (p *Principal) Require(s Scope) error {
	if p.Has(s) {
		return nil
	}
	return Errorf(CodeInsufficientScope, "This key lacks the scope %s.", s)
}

// ResolveLocation decides the location a write or a filtered read is about.
// A location-scoped key is pinned: it may omit the location or name its own;
// naming another is location_forbidden. An org-scoped key must name one when
// required is set.
func (p *Principal) ResolveLocation(sent string, required bool) (string, error) {
	if p.LocationID != "" {
		if sent != "" && sent != p.LocationID {
			return "", &Error{Code: CodeLocationForbidden, Field: "locationId",
				Detail: fmt.Sprintf("This key is scoped to location %s and cannot act on %s.", p.LocationID, sent)}
		}
		return p.LocationID, nil
	}
	if sent == "" && required {
		return "", Invalid("locationId", "locationId is required with an organisation-scoped key.")
	}
	return sent, nil
}

// Actor is a user acting in the application as the rules of access see
// them: their role and the technician they work as ("": none).
type Actor struct {
	Role         Role
	TechnicianID string
}

// MayWorkStep tells whether the actor may start or complete the step: a
// role that writes jobs may, and so may a technician the step is assigned
// to (issue 19: a technician starts and completes their own steps, and
// nothing else). Only who may is decided here: the step's status, the
// job's and the day close are the store's write to check.
func (a Actor) MayWorkStep(st Step) bool {
	return a.Role.Allows("jobs:write") || a.TechnicianID != "" && slices.Contains(st.TechIDs, a.TechnicianID)
}

// MayClock tells whether the actor may clock the technician in or out: a
// role with attendance:write clocks anyone, and every user clocks the
// technician they work as (a technician clocks themself, nobody else).
func (a Actor) MayClock(techID string) bool {
	return a.Role.Allows("attendance:write") || techID != "" && techID == a.TechnicianID
}
