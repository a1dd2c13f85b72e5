package operator

import (
	"context"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The demo organisation has fixed ids, so that seeding it is done once per
// database and its ids are the same on every machine (docs, examples).
const (
	DemoOrgID      = "org_demo"
	demoBerlinID   = "loc_demo_berlin"
	demoNewYorkID  = "loc_demo_new_york"
	demoOwnerID    = "usr_demo_owner"
	demoOwnerEmail = "owner@demo-motors.example"

	demoTechnicianUserID = "usr_demo_technician"

	// The names of the credentials every demo start mints; the next start
	// revokes them by these names (a key the owner makes by hand stays).
	demoOrgKeyName      = "demo org key"
	demoLocationKeyName = "demo location key"
	demoMCPTokenName    = "demo MCP token"
)

// demoUsers sign in to the application, one of each role a newcomer wants
// to try; the owner is the seed's.
var demoUsers = []struct {
	id, email string
	role      workshop.Role
}{
	{demoOwnerID, demoOwnerEmail, workshop.RoleOwner},
	{"usr_demo_advisor", "advisor@demo-motors.example", workshop.RoleAdvisor},
	{demoTechnicianUserID, "technician@demo-motors.example", workshop.RoleTechnician},
}

// DemoUser is a demo user and the password minted for it.
type DemoUser struct {
	Email    string        `json:"email"`
	Password string        `json:"password"`
	Role     workshop.Role `json:"role"`
}

// DemoOut is what `workshop admin demo` prints: the demo's ids and fresh
// secrets (secrets are shown once, so every call mints new ones).
type DemoOut struct {
	OrgID         string     `json:"orgId"`
	LocationIDs   []string   `json:"locationIds"`
	OwnerID       string     `json:"ownerId"`
	TechnicianIDs []string   `json:"technicianIds"`
	BayIDs        []string   `json:"bayIds"`
	OrgKey        string     `json:"orgKey"`
	LocationKey   string     `json:"locationKey"`
	MCPToken      string     `json:"mcpToken"`
	Users         []DemoUser `json:"users"`  // application sign-ins, passwords minted at every call
	Seeded        bool       `json:"seeded"` // false when the demo already existed
}

// Demo seeds the demo organisation when the database has none (in one
// transaction, so several processes starting with --demo at once are
// safe) and a working day in it (demoday.go), then revokes the demo keys
// of the previous call and mints an org key, a key for the Berlin location
// and an MCP token.
func (o *Operator) Demo(ctx context.Context) (DemoOut, error) {
	seed := o.demoSeed()
	out := DemoOut{OrgID: DemoOrgID, LocationIDs: []string{demoBerlinID, demoNewYorkID}, OwnerID: demoOwnerID}
	seeded, err := o.Store.SeedDemo(ctx, seed)
	if err != nil {
		return out, err
	}
	if seeded {
		// Only the process that seeded the organisation adds its day.
		if err := o.demoDay(ctx, seed); err != nil {
			return out, err
		}
		out.Seeded = true
		for _, t := range seed.Technicians {
			out.TechnicianIDs = append(out.TechnicianIDs, t.ID)
		}
		for _, b := range seed.Bays {
			out.BayIDs = append(out.BayIDs, b.ID)
		}
	}
	// The keys printed by the previous start stop working: a demo's keys
	// are the ones it printed last (as its users' passwords are).
	if _, err := o.Store.RevokeCredentialsNamed(ctx, demoOwnerID, demoOrgKeyName, demoLocationKeyName, demoMCPTokenName); err != nil {
		return out, err
	}
	orgKey, err := o.CreateKey(ctx, KeyRequest{UserID: demoOwnerID, Name: demoOrgKeyName})
	if err != nil {
		return out, err
	}
	locKey, err := o.CreateKey(ctx, KeyRequest{UserID: demoOwnerID, LocationID: demoBerlinID, Name: demoLocationKeyName})
	if err != nil {
		return out, err
	}
	token, err := o.CreateNamedMCPToken(ctx, demoOwnerID, demoMCPTokenName)
	if err != nil {
		return out, err
	}
	out.OrgKey, out.LocationKey, out.MCPToken = orgKey.Key, locKey.Key, token.Token
	out.Users, err = o.demoPasswords(ctx)
	return out, err
}

// demoPasswords adds the demo users a demo seeded before them lacks and
// gives each a fresh password (which ends their earlier sessions).
func (o *Operator) demoPasswords(ctx context.Context) ([]DemoUser, error) {
	now := o.stamp()
	users := make([]workshop.User, len(demoUsers))
	for i, d := range demoUsers {
		users[i] = workshop.User{ID: d.id, OrgID: DemoOrgID, Email: d.email, Role: d.role, CreatedAt: now, UpdatedAt: now}
	}
	if err := o.Store.EnsureUsers(ctx, users); err != nil {
		return nil, err
	}
	out := make([]DemoUser, len(demoUsers))
	for i, d := range demoUsers {
		// 16 characters of a key's alphabet: 80 random bits, easy to type.
		password := workshop.NewSecret("")[:16]
		if _, err := o.SetPassword(ctx, d.id, password); err != nil {
			return nil, err
		}
		out[i] = DemoUser{Email: d.email, Password: password, Role: d.role}
	}
	return out, nil
}

func (o *Operator) demoSeed() store.DemoSeed {
	now := o.stamp()
	d := store.DemoSeed{
		Org: workshop.Org{ID: DemoOrgID, Name: "Demo Motors", PlanTier: workshop.PlanPro, CreatedAt: now, UpdatedAt: now},
		Locations: []workshop.Location{
			{ID: demoBerlinID, OrgID: DemoOrgID, Name: "Demo Motors Berlin", Timezone: "Europe/Berlin", CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now},
			{ID: demoNewYorkID, OrgID: DemoOrgID, Name: "Demo Motors Queens", Timezone: "America/New_York", CurrencyCode: "USD", CreatedAt: now, UpdatedAt: now},
		},
		Settings: workshop.DefaultSettings(),
		Owner:    workshop.User{ID: demoOwnerID, OrgID: DemoOrgID, Email: demoOwnerEmail, Role: workshop.RoleOwner, CreatedAt: now, UpdatedAt: now},
		CancelTags: map[string][]workshop.CancelTag{
			demoBerlinID:  tagsOf("customer_declined", "parts_unavailable", "duplicate_booking"),
			demoNewYorkID: tagsOf("no_show", "customer_declined"),
		},
	}
	tech := func(loc, name string, wip int, skills ...string) {
		d.Technicians = append(d.Technicians, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: DemoOrgID,
			LocationID: loc, Name: name, Skills: skills, WIPLimit: wip, Status: "available", CreatedAt: now, UpdatedAt: now})
	}
	bay := func(loc, name string, equipment, services []string) {
		d.Bays = append(d.Bays, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: DemoOrgID, LocationID: loc, Name: name,
			Equipment: equipment, Services: services, Status: "available", CreatedAt: now, UpdatedAt: now})
	}
	tech(demoBerlinID, "Jonas Weber", 2, "diagnostics", "brakes")
	// The demo technician signs in to the application as Jonas (the user
	// row follows in demoPasswords; the link names it, no key enforces it).
	d.Technicians[0].UserID = demoTechnicianUserID
	tech(demoBerlinID, "Aylin Demir", 3, "tyres", "oil")
	tech(demoBerlinID, "Lukas Becker", 1, "electrical", "hv_battery")
	tech(demoNewYorkID, "Maria Lopez", 2, "brakes", "suspension")
	tech(demoNewYorkID, "Dwayne Carter", 2, "oil", "tyres")
	bay(demoBerlinID, "Bay 1", []string{"lift", "alignment"}, []string{"OIL", "BRAKES", "ALIGN"})
	bay(demoBerlinID, "Bay 2", []string{"lift"}, []string{"OIL", "TYRES"})
	bay(demoBerlinID, "EV Bay", []string{"lift", "hv_tools"}, []string{"HV_CHECK"})
	bay(demoNewYorkID, "Bay A", []string{"lift"}, []string{"OIL", "BRAKES"})
	bay(demoNewYorkID, "Bay B", []string{"lift", "tyre_changer"}, []string{"TYRES"})
	return d
}

func tagsOf(tags ...string) []workshop.CancelTag {
	out := make([]workshop.CancelTag, len(tags))
	for i, t := range tags {
		out[i] = workshop.CancelTag{Tag: t, Label: workshop.TagLabel(t)}
	}
	return out
}
