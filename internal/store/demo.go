package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// DemoSeed is the demo organisation with everything in it.
type DemoSeed struct {
	Org         workshop.Org
	Locations   []workshop.Location
	Settings    workshop.Settings
	Owner       workshop.User
	Technicians []workshop.Technician
	Bays        []workshop.Bay
	CancelTags  map[string][]workshop.CancelTag // by location id
}

// SeedDemo stores the demo in one transaction unless its organisation
// exists; seeded tells whether it did. Several processes seeding at once
// (serve --demo on one PostgreSQL database) are safe: the second insert of
// the organisation waits for the first transaction and then finds it.
func (s *Store) SeedDemo(ctx context.Context, d DemoSeed) (seeded bool, err error) {
	return write(ctx, s, func(c conn) (bool, error) {
		res, err := c.exec(ctx, `INSERT INTO orgs (id, name, plan_tier, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, d.Org.ID, d.Org.Name, d.Org.PlanTier, d.Org.CreatedAt, d.Org.UpdatedAt)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, nil
		}
		for _, l := range d.Locations {
			if err := insertLocation(ctx, c, l, d.Settings); err != nil {
				return false, err
			}
		}
		if err := insertUser(ctx, c, d.Owner); err != nil {
			return false, err
		}
		for _, t := range d.Technicians {
			if err := insertTechnician(ctx, c, t); err != nil {
				return false, err
			}
		}
		for _, b := range d.Bays {
			if err := insertBay(ctx, c, b); err != nil {
				return false, err
			}
		}
		for loc, tags := range d.CancelTags {
			if err := replaceCancelTags(ctx, c, loc, tags); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// EnsureUsers stores the users that do not exist yet (by id or email in
// their organisation) and leaves the others as they are: demo users added
// to a demo seeded before them.
func (s *Store) EnsureUsers(ctx context.Context, users []workshop.User) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		for _, u := range users {
			if _, err := c.exec(ctx, `INSERT INTO users (id, org_id, email, role, developer_access, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				u.ID, u.OrgID, u.Email, u.Role, u.DeveloperAccess, u.CreatedAt, u.UpdatedAt); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}
