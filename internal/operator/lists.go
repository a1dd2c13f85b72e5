package operator

import (
	"context"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The `workshop admin ... list` commands: the records the create commands
// make, with the fields those print, never a secret or a hash. Without
// --org a list spans every organisation, in their order of creation.

// ListOut is a printed list.
type ListOut[T any] struct {
	Data []T `json:"data"`
}

func listOf[T any](rows []T) ListOut[T] {
	if rows == nil {
		rows = []T{}
	}
	return ListOut[T]{Data: rows}
}

// ListOrgs lists every organisation.
func (o *Operator) ListOrgs(ctx context.Context) (ListOut[OrgOut], error) {
	orgs, err := o.Store.Orgs(ctx)
	out := make([]OrgOut, len(orgs))
	for i, org := range orgs {
		out[i] = OrgOut{ID: org.ID, Name: org.Name, PlanTier: org.PlanTier}
	}
	return listOf(out), err
}

// ListLocations lists the locations of an organisation ("": of every one).
func (o *Operator) ListLocations(ctx context.Context, orgID string) (ListOut[workshop.Location], error) {
	rows, err := eachOrg(ctx, o.Store, orgID, func(org string) ([]workshop.Location, error) { return o.Store.Locations(ctx, org, "") })
	return listOf(rows), err
}

// ListUsers lists the users of an organisation ("": of every one), by email.
func (o *Operator) ListUsers(ctx context.Context, orgID string) (ListOut[workshop.User], error) {
	rows, err := eachOrg(ctx, o.Store, orgID, func(org string) ([]workshop.User, error) {
		users, err := o.Store.OrgUsers(ctx, org)
		out := make([]workshop.User, len(users))
		for i, u := range users {
			out[i] = u.User
		}
		return out, err
	})
	return listOf(rows), err
}

// CredentialOut is a listed key or MCP token: what its create printed but
// the secret, with its owner, name and state.
type CredentialOut struct {
	ID            string           `json:"id"`
	Name          string           `json:"name"`
	OrgID         string           `json:"orgId"`
	UserID        string           `json:"userId"`
	LocationID    *string          `json:"locationId"`
	IntegrationID *string          `json:"integrationId"`
	Scopes        []workshop.Scope `json:"scopes"`
	ExpiresAt     *workshop.Micros `json:"expiresAt"`
	RevokedAt     *workshop.Micros `json:"revokedAt"`
	CreatedAt     workshop.Micros  `json:"createdAt"`
	LastUsedAt    *workshop.Micros `json:"lastUsedAt"` // to the minute
}

// CredentialListRequest chooses the keys or tokens of a list: of an
// organisation, of a user, or ("" both) of every organisation.
type CredentialListRequest struct {
	Kind          workshop.CredentialKind
	OrgID, UserID string
}

// ListCredentials lists keys or MCP tokens, revoked ones included, newest
// first within an organisation.
func (o *Operator) ListCredentials(ctx context.Context, r CredentialListRequest) (ListOut[CredentialOut], error) {
	if r.OrgID != "" && r.UserID != "" {
		return ListOut[CredentialOut]{}, workshop.Invalid("user", "Give --org or --user, not both.")
	}
	if r.UserID != "" {
		u, err := o.Store.User(ctx, r.UserID)
		if err != nil {
			return ListOut[CredentialOut]{}, err
		}
		r.OrgID = u.OrgID
	}
	rows, err := eachOrg(ctx, o.Store, r.OrgID, func(org string) ([]CredentialOut, error) {
		creds, err := o.Store.Credentials(ctx, store.CredentialFilter{OrgID: org, UserID: r.UserID, Kind: r.Kind})
		out := make([]CredentialOut, len(creds))
		for i, c := range creds {
			out[i] = CredentialOut{ID: c.ID, Name: c.Name, OrgID: c.OrgID, UserID: c.UserID, LocationID: optional(c.LocationID),
				IntegrationID: optional(c.IntegrationID), Scopes: c.Scopes, ExpiresAt: c.ExpiresAt, RevokedAt: c.RevokedAt,
				CreatedAt: c.CreatedAt, LastUsedAt: c.LastUsedAt}
		}
		return out, err
	})
	return listOf(rows), err
}

// ListTechnicians lists a location's technicians by (createdAt, id).
func (o *Operator) ListTechnicians(ctx context.Context, locationID string) (ListOut[workshop.Technician], error) {
	v, err := o.locationVisibility(ctx, locationID)
	if err != nil {
		return ListOut[workshop.Technician]{}, err
	}
	rows, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Technician], error) {
		return o.Store.Technicians(ctx, v, p)
	})
	return listOf(rows), err
}

// ListBays lists a location's bays by (createdAt, id).
func (o *Operator) ListBays(ctx context.Context, locationID string) (ListOut[workshop.Bay], error) {
	v, err := o.locationVisibility(ctx, locationID)
	if err != nil {
		return ListOut[workshop.Bay]{}, err
	}
	rows, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Bay], error) {
		return o.Store.Bays(ctx, v, p)
	})
	return listOf(rows), err
}

// locationVisibility is the view of one location, which must exist.
func (o *Operator) locationVisibility(ctx context.Context, locationID string) (store.Visibility, error) {
	if locationID == "" {
		return store.Visibility{}, workshop.Invalid("location", "Give the location with --location LOC_ID.")
	}
	l, err := o.Store.LocationByID(ctx, locationID)
	return store.Visibility{OrgID: l.OrgID, LocationID: l.ID}, err
}

// eachOrg gathers the rows of one organisation, which must exist, or ("")
// of every organisation in their order of creation.
func eachOrg[T any](ctx context.Context, st Store, orgID string, rowsOf func(orgID string) ([]T, error)) ([]T, error) {
	if orgID != "" {
		if _, err := st.Org(ctx, orgID); err != nil {
			return nil, err
		}
		return rowsOf(orgID)
	}
	orgs, err := st.Orgs(ctx)
	if err != nil {
		return nil, err
	}
	var all []T
	for _, org := range orgs {
		rows, err := rowsOf(org.ID)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}
