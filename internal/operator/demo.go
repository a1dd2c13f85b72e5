package operator

import (
	"context"
	"errors"

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
)

// DemoOut is what `workshop admin demo` prints: the demo's ids and fresh
// secrets (secrets are shown once, so every call mints new ones).
type DemoOut struct {
	OrgID         string   `json:"orgId"`
	LocationIDs   []string `json:"locationIds"`
	OwnerID       string   `json:"ownerId"`
	TechnicianIDs []string `json:"technicianIds"`
	BayIDs        []string `json:"bayIds"`
	OrgKey        string   `json:"orgKey"`
	LocationKey   string   `json:"locationKey"`
	MCPToken      string   `json:"mcpToken"`
	Seeded        bool     `json:"seeded"` // false when the demo already existed
}

// Demo seeds the demo organisation when the database has none, then mints
// an org key, a key for the Berlin location and an MCP token.
func (o *Operator) Demo(ctx context.Context) (DemoOut, error) {
	out := DemoOut{OrgID: DemoOrgID, LocationIDs: []string{demoBerlinID, demoNewYorkID}, OwnerID: demoOwnerID}
	_, err := o.Store.Org(ctx, DemoOrgID)
	switch {
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		if err := o.seedDemo(ctx, &out); err != nil {
			return out, err
		}
		out.Seeded = true
	case err != nil:
		return out, err
	}
	orgKey, err := o.CreateKey(ctx, KeyRequest{UserID: demoOwnerID})
	if err != nil {
		return out, err
	}
	locKey, err := o.CreateKey(ctx, KeyRequest{UserID: demoOwnerID, LocationID: demoBerlinID})
	if err != nil {
		return out, err
	}
	token, err := o.CreateMCPToken(ctx, demoOwnerID)
	if err != nil {
		return out, err
	}
	out.OrgKey, out.LocationKey, out.MCPToken = orgKey.Key, locKey.Key, token.Token
	return out, nil
}

func (o *Operator) seedDemo(ctx context.Context, out *DemoOut) error {
	now := o.stamp()
	if _, err := o.Store.CreateOrg(ctx, workshop.Org{ID: DemoOrgID, Name: "Demo Motors", PlanTier: workshop.PlanPro, CreatedAt: now, UpdatedAt: now}); err != nil {
		return err
	}
	for _, l := range []workshop.Location{
		{ID: demoBerlinID, Name: "Demo Motors Berlin", Timezone: "Europe/Berlin", CurrencyCode: "EUR"},
		{ID: demoNewYorkID, Name: "Demo Motors Queens", Timezone: "America/New_York", CurrencyCode: "USD"},
	} {
		l.OrgID, l.CreatedAt, l.UpdatedAt = DemoOrgID, now, now
		if _, err := o.Store.CreateLocation(ctx, l, workshop.DefaultSettings()); err != nil {
			return err
		}
	}
	if _, err := o.Store.CreateUser(ctx, workshop.User{ID: demoOwnerID, OrgID: DemoOrgID, Email: demoOwnerEmail,
		Role: workshop.RoleOwner, CreatedAt: now, UpdatedAt: now}); err != nil {
		return err
	}
	var errs []error
	addTech := func(loc, name string, skills []string, wip int) {
		t, err := o.CreateTechnician(ctx, loc, name, skills, wip)
		out.TechnicianIDs = append(out.TechnicianIDs, t.ID)
		errs = append(errs, err)
	}
	addBay := func(loc, name string, equipment, services []string) {
		b, err := o.CreateBay(ctx, loc, name, equipment, services)
		out.BayIDs = append(out.BayIDs, b.ID)
		errs = append(errs, err)
	}
	addTech(demoBerlinID, "Jonas Weber", []string{"diagnostics", "brakes"}, 2)
	addTech(demoBerlinID, "Aylin Demir", []string{"tyres", "oil"}, 3)
	addTech(demoBerlinID, "Lukas Becker", []string{"electrical", "hv_battery"}, 1)
	addTech(demoNewYorkID, "Maria Lopez", []string{"brakes", "suspension"}, 2)
	addTech(demoNewYorkID, "Dwayne Carter", []string{"oil", "tyres"}, 2)
	addBay(demoBerlinID, "Bay 1", []string{"lift", "alignment"}, []string{"OIL", "BRAKES", "ALIGN"})
	addBay(demoBerlinID, "Bay 2", []string{"lift"}, []string{"OIL", "TYRES"})
	addBay(demoBerlinID, "EV Bay", []string{"lift", "hv_tools"}, []string{"HV_CHECK"})
	addBay(demoNewYorkID, "Bay A", []string{"lift"}, []string{"OIL", "BRAKES"})
	addBay(demoNewYorkID, "Bay B", []string{"lift", "tyre_changer"}, []string{"TYRES"})
	_, err := o.SetCancelTags(ctx, demoBerlinID, []string{"customer_declined", "parts_unavailable", "duplicate_booking"})
	errs = append(errs, err)
	_, err = o.SetCancelTags(ctx, demoNewYorkID, []string{"no_show", "customer_declined"})
	errs = append(errs, err)
	return errors.Join(errs...)
}
