package workshop

import (
	"slices"
	"time"
)

// Org is a tenant: a dealer group or an independent garage.
type Org struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	PlanTier  Plan   `json:"planTier"`
	CreatedAt Micros `json:"createdAt"`
	UpdatedAt Micros `json:"updatedAt"`
}

// Location is one site of an organisation.
type Location struct {
	ID           string `json:"id"`
	OrgID        string `json:"orgId"`
	Name         string `json:"name"`
	Timezone     string `json:"timezone"`
	CurrencyCode string `json:"currencyCode"`
	CreatedAt    Micros `json:"createdAt"`
	UpdatedAt    Micros `json:"updatedAt"`
}

// Zone loads the location's time zone; it was validated when the location
// was made, so a failure here means the host lacks zone data.
func (l Location) Zone() (*time.Location, error) { return LoadZone(l.Timezone) }

// User is a person of an organisation with a role.
type User struct {
	ID              string `json:"id"`
	OrgID           string `json:"orgId"`
	Email           string `json:"email"`
	Role            Role   `json:"role"`
	DeveloperAccess bool   `json:"developerAccess"`
	CreatedAt       Micros `json:"createdAt"`
	UpdatedAt       Micros `json:"updatedAt"`
	// PasswordHash is the argon2id hash of the application password ("":
	// none set). Writes store it; only sign-in's reads fill it in.
	PasswordHash string `json:"-"`
}

// Credential is a stored API key or MCP token. Only the SHA-256 of the
// secret is kept; the secret itself is shown once, when it is made.
type Credential struct {
	ID            string
	Kind          CredentialKind
	Name          string // what its owner calls it ("" when not named)
	OrgID         string
	UserID        string
	LocationID    string
	IntegrationID string
	SecretHash    string
	Scopes        []Scope
	ExpiresAt     *Micros
	RevokedAt     *Micros
	CreatedAt     Micros
	LastUsedAt    *Micros // when it last authenticated a request, to the minute (read by lists only)
}

// Integration is an external system (DMS, ERP, ...) registered so that what
// it syncs can be attributed to it.
type Integration struct {
	ID         string `json:"id"`
	OrgID      string `json:"orgId"`
	Name       string `json:"name"`
	SystemType string `json:"systemType"`
	CreatedAt  Micros `json:"createdAt"`
	UpdatedAt  Micros `json:"updatedAt"`
}

// SystemTypes is the set of integration system types.
var SystemTypes = []string{"dms", "erp", "time_tracking", "facilities", "accounting", "crm", "other"}

// Technician is a person who does the work.
type Technician struct {
	ID         string   `json:"id"`
	OrgID      string   `json:"-"`
	LocationID string   `json:"locationId"`
	Name       string   `json:"name"`
	Skills     []string `json:"skills"`
	WIPLimit   int      `json:"wipLimit"`
	Status     string   `json:"status"`
	ClockedIn  bool     `json:"clockedIn"` // derived from attendance
	// WorkingHours is when the technician works: nil, the location's
	// working time; a weekly list otherwise (calendars.go).
	WorkingHours []WeeklyHours `json:"workingHours"`
	CreatedAt    Micros        `json:"createdAt"`
	UpdatedAt    Micros        `json:"updatedAt"`
	// UserID is the application user who works as this technician ("":
	// none), as a create or the application's edit sets it and every read
	// fills it in; the API's record leaves it out.
	UserID string `json:"-"`
}

// Technician statuses.
var TechnicianStatuses = []string{"available", "on_break", "unavailable"}

// DefaultWIPLimit is the work-in-progress limit of a technician made without one.
const DefaultWIPLimit = 2

// Bay is a physical service bay.
type Bay struct {
	ID         string   `json:"id"`
	OrgID      string   `json:"-"`
	LocationID string   `json:"locationId"`
	Name       string   `json:"name"`
	Equipment  []string `json:"equipment"`
	Services   []string `json:"services"`
	Status     string   `json:"status"`
	Occupied   bool     `json:"occupied"` // derived: a step in progress is assigned to it
	CreatedAt  Micros   `json:"createdAt"`
	UpdatedAt  Micros   `json:"updatedAt"`
}

// Bay statuses.
var BayStatuses = []string{"available", "maintenance"}

// CancelTag is one entry of a location's governed list of cancel reasons.
type CancelTag struct {
	Tag   string `json:"tag"`
	Label string `json:"label"`
	// Retired: no cancel may give it any more; the jobs cancelled with it
	// keep it. The API lists only the active tags.
	Retired bool `json:"-"`
}

// DayState is where a location is in its day close.
type DayState struct {
	LocationID string `json:"locationId"`
	State      string `json:"state"` // "open" or "closing"
	ClosedDate string `json:"closedDate,omitempty"`
}

// Day states.
const (
	DayOpen    = "open"
	DayClosing = "closing"
)

// Dedupe returns the strings in their first order without repeats, never
// nil (a list sent twice with the same entry means it once).
func Dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
