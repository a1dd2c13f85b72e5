// Package operator is what the workshop application does for its staff and
// operators, for now through the `workshop admin` commands: make
// organisations, locations, users, keys, technicians and bays, govern cancel
// tags and run the day close. Each operation validates its input and
// returns the record to print.
package operator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Store is what the operator needs of the database.
type Store interface {
	CreateOrg(ctx context.Context, o workshop.Org) (workshop.Org, error)
	Org(ctx context.Context, id string) (workshop.Org, error)
	SetOrgPlan(ctx context.Context, id string, plan workshop.Plan) (workshop.Org, error)
	CreateLocation(ctx context.Context, l workshop.Location, s workshop.Settings) (workshop.Location, error)
	LocationByID(ctx context.Context, id string) (workshop.Location, error)
	CreateUser(ctx context.Context, u workshop.User) (workshop.User, error)
	User(ctx context.Context, id string) (workshop.User, error)
	Integration(ctx context.Context, orgID, id string) (workshop.Integration, error)
	CreateCredential(ctx context.Context, c workshop.Credential) (workshop.Credential, error)
	RevokeCredential(ctx context.Context, id string) (workshop.Micros, error)
	CreateTechnician(ctx context.Context, t workshop.Technician) (workshop.Technician, error)
	DeleteTechnician(ctx context.Context, id string) error
	RecordVisibility(ctx context.Context, table, id string) (store.Visibility, error)
	SetTechnicianHours(ctx context.Context, v store.Visibility, id string, hours []workshop.WeeklyHours, now workshop.Micros) (workshop.Technician, error)
	CreateAbsence(ctx context.Context, v store.Visibility, a workshop.Absence, opts ...store.WriteOption) (workshop.Absence, error)
	CreateMaintenanceWindow(ctx context.Context, v store.Visibility, w workshop.MaintenanceWindow, opts ...store.WriteOption) (workshop.MaintenanceWindow, error)
	CreateBay(ctx context.Context, b workshop.Bay) (workshop.Bay, error)
	DeleteBay(ctx context.Context, id string) error
	SetCancelTags(ctx context.Context, locationID string, tags []workshop.CancelTag) ([]workshop.CancelTag, error)
	StartDayClose(ctx context.Context, st store.DayCloseStart) (workshop.DayClose, error)
	FinishDayClose(ctx context.Context, f store.DayCloseFinish) (workshop.DayClose, error)
	DayClosed(ctx context.Context, locationID, date string) (bool, error)
	Settings(ctx context.Context, locationID string) (workshop.Settings, error)
	SetSettings(ctx context.Context, locationID string, s workshop.Settings, opts ...store.WriteOption) error
	SeedDemo(ctx context.Context, d store.DemoSeed) (bool, error)
	RevokeCredentialsNamed(ctx context.Context, userID string, names ...string) (int64, error)

	// The lists of the operator commands (lists.go).
	Orgs(ctx context.Context) ([]workshop.Org, error)
	Locations(ctx context.Context, orgID, onlyID string) ([]workshop.Location, error)
	OrgUsers(ctx context.Context, orgID string) ([]store.OrgUser, error)
	Credentials(ctx context.Context, f store.CredentialFilter) ([]store.OwnedCredential, error)
	Technicians(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.Technician], error)
	Bays(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.Bay], error)
	EnsureUsers(ctx context.Context, users []workshop.User) error

	// Sign-in to the application (users.go).
	SetPassword(ctx context.Context, userID, passwordHash string) (workshop.User, error)
	CreateInvite(ctx context.Context, userID, tokenHash string, expiresAt workshop.Micros) error
	CreateSetupToken(ctx context.Context, tokenHash string, expiresAt workshop.Micros) (bool, error)
	CompleteSetup(ctx context.Context, tokenHash string, su store.Setup) error

	// The import and export of a group's setup (groupimport.go).
	ImportLocation(ctx context.Context, in store.LocationImport) (store.LocationImported, error)
	CancelTags(ctx context.Context, locationID string) ([]workshop.CancelTag, error)
	CatalogItems(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.CatalogItem], error)

	// The demo's working day is made with the API's writes.
	PutCatalogItem(ctx context.Context, it workshop.CatalogItem) (store.CatalogPut, error)
	ClockIn(ctx context.Context, v store.Visibility, techID string, at time.Time, opts ...store.WriteOption) (workshop.Attendance, error)
	CreateJob(ctx context.Context, j workshop.Job, stampArrival bool, opts ...store.WriteOption) (store.JobCreate, error)
	CreateStep(ctx context.Context, v store.Visibility, st workshop.Step, opts ...store.WriteOption) (workshop.Step, error)
	PatchStep(ctx context.Context, v store.Visibility, jobID, stepID string, p store.StepPatch, now workshop.Micros) (workshop.Step, error)
	DeliverJob(ctx context.Context, v store.Visibility, id string, now workshop.Micros, opts ...store.WriteOption) (workshop.Job, error)
	CancelJob(ctx context.Context, v store.Visibility, id string, tags []string, now workshop.Micros, opts ...store.WriteOption) (workshop.Job, error)
}

// Operator runs the operator commands against a store.
type Operator struct {
	Store Store
	Now   func() time.Time
}

// New makes an Operator on the real clock.
func New(s Store) *Operator { return &Operator{Store: s, Now: time.Now} }

func (o *Operator) stamp() workshop.Micros { return workshop.MicrosOf(o.Now()) }

// OrgOut is the printed organisation.
type OrgOut struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	PlanTier workshop.Plan `json:"planTier"`
}

// CreateOrg makes an organisation on a plan (default pro).
func (o *Operator) CreateOrg(ctx context.Context, name string, plan workshop.Plan) (OrgOut, error) {
	if plan == "" {
		plan = workshop.PlanPro
	}
	if err := workshop.CheckName("name", name); err != nil {
		return OrgOut{}, err
	}
	if !plan.Valid() {
		return OrgOut{}, workshop.Invalid("plan", "Unknown plan %q: want one of %v.", plan, workshop.Plans)
	}
	now := o.stamp()
	org, err := o.Store.CreateOrg(ctx, workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: name, PlanTier: plan, CreatedAt: now, UpdatedAt: now})
	return OrgOut{ID: org.ID, Name: org.Name, PlanTier: org.PlanTier}, err
}

// SetPlan changes an organisation's plan.
func (o *Operator) SetPlan(ctx context.Context, orgID string, plan workshop.Plan) (OrgOut, error) {
	if !plan.Valid() {
		return OrgOut{}, workshop.Invalid("plan", "Unknown plan %q: want one of %v.", plan, workshop.Plans)
	}
	org, err := o.Store.SetOrgPlan(ctx, orgID, plan)
	return OrgOut{ID: org.ID, Name: org.Name, PlanTier: org.PlanTier}, err
}

// CreateLocation makes a location in an IANA time zone, with default
// workshop settings.
func (o *Operator) CreateLocation(ctx context.Context, orgID, name, timezone, currency string) (workshop.Location, error) {
	l, err := newLocation(orgID, LocationFields{Name: name, Timezone: timezone, Currency: currency}, "name", o.stamp())
	if err != nil {
		return l, err
	}
	if _, err := o.Store.Org(ctx, orgID); err != nil {
		return workshop.Location{}, err
	}
	return o.Store.CreateLocation(ctx, l, workshop.DefaultSettings())
}

// CreateUser makes a user with a role.
func (o *Operator) CreateUser(ctx context.Context, orgID, email string, role workshop.Role, developer bool) (workshop.User, error) {
	return o.AddUser(ctx, UserRequest{OrgID: orgID, Email: email, Role: role, Developer: developer})
}

// KeyOut is a created API key: the secret is shown this once.
type KeyOut struct {
	ID            string           `json:"id"`
	Key           string           `json:"key"`
	OrgID         string           `json:"orgId"`
	LocationID    *string          `json:"locationId"`
	IntegrationID *string          `json:"integrationId"`
	Scopes        []workshop.Scope `json:"scopes"`
	ExpiresAt     *workshop.Micros `json:"expiresAt"`
}

// KeyRequest is what a key is made with.
type KeyRequest struct {
	UserID, LocationID, IntegrationID, Scopes string
	Name                                      string // optional: what the user calls it
	ExpiresAt                                 *time.Time
}

// CreateKey makes an API key for a user with developer access, its scopes
// limited to what the user's role allows.
func (o *Operator) CreateKey(ctx context.Context, r KeyRequest) (KeyOut, error) {
	u, err := o.developer(ctx, r.UserID)
	if err != nil {
		return KeyOut{}, err
	}
	if err := checkKeyName(r.Name); err != nil {
		return KeyOut{}, err
	}
	scopes, err := workshop.ParseScopes(r.Scopes, u.Role)
	if err != nil {
		return KeyOut{}, err
	}
	if r.LocationID != "" {
		if l, err := o.Store.LocationByID(ctx, r.LocationID); err != nil || l.OrgID != u.OrgID {
			return KeyOut{}, workshop.Invalid("location", "Location %s is not a location of the user's organisation.", r.LocationID)
		}
	}
	if r.IntegrationID != "" {
		if _, err := o.Store.Integration(ctx, u.OrgID, r.IntegrationID); err != nil {
			return KeyOut{}, workshop.Invalid("integration", "Integration %s is not an integration of the user's organisation.", r.IntegrationID)
		}
	}
	var expires *workshop.Micros
	if r.ExpiresAt != nil {
		if !r.ExpiresAt.After(o.Now()) {
			return KeyOut{}, workshop.Invalid("expires", "The expiry %s is not in the future.", r.ExpiresAt.Format(time.RFC3339))
		}
		m := workshop.MicrosOf(*r.ExpiresAt)
		expires = &m
	}
	secret := workshop.NewSecret(workshop.APIKeyPrefix)
	c, err := o.Store.CreateCredential(ctx, workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindAPIKey,
		Name: strings.TrimSpace(r.Name), OrgID: u.OrgID, UserID: u.ID, LocationID: r.LocationID, IntegrationID: r.IntegrationID,
		SecretHash: workshop.HashSecret(secret), Scopes: scopes, ExpiresAt: expires, CreatedAt: o.stamp()})
	if err != nil {
		return KeyOut{}, err
	}
	return KeyOut{ID: c.ID, Key: secret, OrgID: c.OrgID, LocationID: optional(c.LocationID),
		IntegrationID: optional(c.IntegrationID), Scopes: c.Scopes, ExpiresAt: c.ExpiresAt}, nil
}

// RevokedOut is a revoked key.
type RevokedOut struct {
	ID        string          `json:"id"`
	RevokedAt workshop.Micros `json:"revokedAt"`
}

// RevokeKey revokes a key or MCP token; it stops working on the next request.
func (o *Operator) RevokeKey(ctx context.Context, id string) (RevokedOut, error) {
	at, err := o.Store.RevokeCredential(ctx, id)
	return RevokedOut{ID: id, RevokedAt: at}, err
}

// TokenOut is a created MCP token: the secret is shown this once.
type TokenOut struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

// CreateMCPToken makes a read-only MCP token acting as the user.
func (o *Operator) CreateMCPToken(ctx context.Context, userID string) (TokenOut, error) {
	return o.CreateNamedMCPToken(ctx, userID, "")
}

// readScopes are the read scopes of a role: an MCP token never writes.
func readScopes(r workshop.Role) []workshop.Scope {
	var out []workshop.Scope
	for _, s := range r.Scopes() {
		if strings.HasSuffix(string(s), ":read") {
			out = append(out, s)
		}
	}
	return out
}

func (o *Operator) developer(ctx context.Context, userID string) (workshop.User, error) {
	u, err := o.Store.User(ctx, userID)
	if err != nil {
		return u, err
	}
	if !u.HasDeveloperAccess() {
		return u, workshop.Invalid("user", "User %s has no developer access: only owners, admins and users created with --developer can create keys.", u.ID)
	}
	return u, nil
}

// TechnicianRequest is a technician to make.
type TechnicianRequest struct {
	LocationID, Name string
	Skills           []string
	WIPLimit         int
	// UserID is the application user who works as the technician ("":
	// none): a user of the location's organisation with the technician role.
	UserID string
}

// CreateTechnician makes a technician in a location.
func (o *Operator) CreateTechnician(ctx context.Context, r TechnicianRequest) (workshop.Technician, error) {
	l, err := o.Store.LocationByID(ctx, r.LocationID)
	if err != nil {
		return workshop.Technician{}, err
	}
	if r.UserID != "" {
		u, err := o.Store.User(ctx, r.UserID)
		var found *workshop.User
		if err == nil {
			found = &u
		}
		if err := workshop.CheckTechnicianUser(found, l.OrgID, r.UserID); err != nil {
			return workshop.Technician{}, err
		}
	}
	now := o.stamp()
	return o.Store.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: l.OrgID,
		LocationID: l.ID, Name: r.Name, Skills: nonNil(r.Skills), WIPLimit: r.WIPLimit, Status: "available", CreatedAt: now, UpdatedAt: now,
		UserID: r.UserID})
}

// CreateBay makes a bay in a location.
func (o *Operator) CreateBay(ctx context.Context, locationID, name string, equipment, services []string) (workshop.Bay, error) {
	l, err := o.Store.LocationByID(ctx, locationID)
	if err != nil {
		return workshop.Bay{}, err
	}
	now := o.stamp()
	return o.Store.CreateBay(ctx, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: l.OrgID, LocationID: l.ID,
		Name: name, Equipment: nonNil(equipment), Services: nonNil(services), Status: "available", CreatedAt: now, UpdatedAt: now})
}

// DeletedOut is a deleted technician or bay.
type DeletedOut struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// DeleteTechnician deletes a technician.
func (o *Operator) DeleteTechnician(ctx context.Context, id string) (DeletedOut, error) {
	return DeletedOut{ID: id, Deleted: true}, o.Store.DeleteTechnician(ctx, id)
}

// DeleteBay deletes a bay.
func (o *Operator) DeleteBay(ctx context.Context, id string) (DeletedOut, error) {
	return DeletedOut{ID: id, Deleted: true}, o.Store.DeleteBay(ctx, id)
}

// TagsOut is a location's cancel reason tags.
type TagsOut struct {
	Data []workshop.CancelTag `json:"data"`
}

// SetCancelTags replaces a location's cancel reason tags. Each argument is
// a tag (its label made from it) or tag=Label.
func (o *Operator) SetCancelTags(ctx context.Context, locationID string, args []string) (TagsOut, error) {
	if _, err := o.Store.LocationByID(ctx, locationID); err != nil {
		return TagsOut{}, err
	}
	if len(args) == 0 {
		return TagsOut{}, workshop.Invalid("tags", "Give at least one tag.")
	}
	var tags []workshop.CancelTag
	for _, a := range args {
		tag, label, hasLabel := strings.Cut(a, "=")
		if err := workshop.CheckCancelTag("tags", "tags", tag, label); err != nil {
			return TagsOut{}, err
		}
		if slices.ContainsFunc(tags, func(t workshop.CancelTag) bool { return t.Tag == tag }) {
			return TagsOut{}, workshop.Invalid("tags", "The tag %q is given twice.", tag)
		}
		if !hasLabel || strings.TrimSpace(label) == "" {
			label = workshop.TagLabel(tag)
		}
		tags = append(tags, workshop.CancelTag{Tag: tag, Label: label})
	}
	saved, err := o.Store.SetCancelTags(ctx, locationID, tags)
	return TagsOut{Data: saved}, err
}

// StartDayClose puts a location mid-close (workshop admin day-close
// start): the close of its local date, started by no user.
func (o *Operator) StartDayClose(ctx context.Context, locationID string) (workshop.DayState, error) {
	d, err := o.OpenDayClose(ctx, locationID, "", "")
	return workshop.DayState{LocationID: d.LocationID, State: workshop.DayClosing}, err
}

// DaysToClose are the local dates the location's close may be started for
// now (workshop.DaysToClose).
func (o *Operator) DaysToClose(ctx context.Context, locationID string) (workshop.CloseDays, error) {
	l, err := o.Store.LocationByID(ctx, locationID)
	if err != nil {
		return workshop.CloseDays{}, err
	}
	zone, err := l.Zone()
	if err != nil {
		return workshop.CloseDays{}, fmt.Errorf("location %s: %w", l.ID, err)
	}
	settings, err := o.Store.Settings(ctx, locationID)
	if err != nil {
		return workshop.CloseDays{}, err
	}
	return workshop.DaysToClose(workshop.NewCalendar(zone, settings), o.Now(), func(date string) (bool, error) {
		return o.Store.DayClosed(ctx, locationID, date)
	})
}

// OpenDayClose starts the close of the location's local date date, one of
// DaysToClose ("" is today, as a page from before the choice sends), as
// user by, or returns the close already under way.
func (o *Operator) OpenDayClose(ctx context.Context, locationID, date, by string) (workshop.DayClose, error) {
	days, err := o.DaysToClose(ctx, locationID)
	if err != nil {
		return workshop.DayClose{}, err
	}
	if date == "" {
		date = days.Today
	}
	if !slices.Contains(days.Offered(), date) {
		return workshop.DayClose{}, workshop.Invalid("date", "A close can be started for today or for the last working day while it is not closed.")
	}
	return o.Store.StartDayClose(ctx, store.DayCloseStart{LocationID: locationID, BusinessDate: date, By: by})
}

// FinishDayClose reopens a location (workshop admin day-close finish),
// whatever its checklist still holds; the closed date is the close's, or
// today in its zone when none was under way.
func (o *Operator) FinishDayClose(ctx context.Context, locationID string) (workshop.DayState, error) {
	today, err := o.localToday(ctx, locationID)
	if err != nil {
		return workshop.DayState{}, err
	}
	d, err := o.Store.FinishDayClose(ctx, store.DayCloseFinish{LocationID: locationID, Today: today})
	return workshop.DayState{LocationID: locationID, State: workshop.DayOpen, ClosedDate: d.BusinessDate}, err
}

// CloseDay finishes the location's close as user by, once every open
// item of its checklist has a decision (the application's finish).
func (o *Operator) CloseDay(ctx context.Context, locationID, by string) (workshop.DayClose, error) {
	return o.Store.FinishDayClose(ctx, store.DayCloseFinish{LocationID: locationID, By: by, Strict: true})
}

// localToday is the location's local date now.
func (o *Operator) localToday(ctx context.Context, locationID string) (string, error) {
	l, err := o.Store.LocationByID(ctx, locationID)
	if err != nil {
		return "", err
	}
	zone, err := l.Zone()
	if err != nil {
		return "", fmt.Errorf("location %s: %w", l.ID, err)
	}
	return o.Now().In(zone).Format(time.DateOnly), nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// SetTechnicianHours sets a technician's working hours from JSON: null
// (the location's working time) or a weekly list
// [{"day":"mon","start":"08:00","end":"14:00"}].
func (o *Operator) SetTechnicianHours(ctx context.Context, id, hoursJSON string) (workshop.Technician, error) {
	if strings.TrimSpace(hoursJSON) == "" {
		return workshop.Technician{}, workshop.Invalid("workingHours", `Give the hours with --working-hours JSON: null, or a list such as [{"day":"mon","start":"08:00","end":"14:00"}].`)
	}
	hours, err := workshop.ParseWorkingHours(hoursJSON)
	if err != nil {
		return workshop.Technician{}, err
	}
	v, err := o.Store.RecordVisibility(ctx, "technicians", id)
	if err != nil {
		return workshop.Technician{}, err
	}
	return o.Store.SetTechnicianHours(ctx, v, id, hours, o.stamp())
}
