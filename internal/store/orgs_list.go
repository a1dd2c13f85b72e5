package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Orgs lists every organisation by (createdAt, id): the operator's view,
// across tenants (workshop admin org list).
func (s *Store) Orgs(ctx context.Context) ([]workshop.Org, error) {
	rows, err := s.read().query(ctx, `SELECT id, name, plan_tier, created_at, updated_at FROM orgs ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanOrg)
}
