package httpapi

import (
	"context"
	"net/http"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// PlatformStore is what the platform operations need.
type PlatformStore interface {
	Locations(ctx context.Context, orgID, onlyID string) ([]workshop.Location, error)
	CreateIntegration(ctx context.Context, in workshop.Integration, opts ...store.WriteOption) (workshop.Integration, error)
	Integrations(ctx context.Context, orgID string, p workshop.PageRequest) (workshop.Page[workshop.Integration], error)
	Integration(ctx context.Context, orgID, id string) (workshop.Integration, error)
}

func (h *handlers) GetMe(ctx context.Context, _ oapi.GetMeRequestObject) (oapi.GetMeResponseObject, error) {
	p := principalOf(ctx)
	return oapi.GetMe200JSONResponse{KeyId: p.KeyID, OrgId: p.OrgID, LocationId: optional(p.LocationID),
		PlanTier: oapi.PlanTier(p.PlanTier), Scopes: mapList(p.Scopes, func(s workshop.Scope) oapi.Scope { return oapi.Scope(s) })}, nil
}

func (h *handlers) ListLocations(ctx context.Context, _ oapi.ListLocationsRequestObject) (oapi.ListLocationsResponseObject, error) {
	p := principalOf(ctx)
	locs, err := h.store.Locations(ctx, p.OrgID, p.LocationID)
	if err != nil {
		return nil, err
	}
	return oapi.ListLocations200JSONResponse{Data: mapList(locs, presentLocation), NextCursor: cursorOf(nil)}, nil
}

func presentLocation(l workshop.Location) oapi.Location {
	return oapi.Location{Id: l.ID, Name: l.Name, Timezone: l.Timezone, CurrencyCode: l.CurrencyCode}
}

func integrationOf(in workshop.Integration) oapi.Integration {
	return oapi.Integration{Id: in.ID, Name: in.Name, SystemType: oapi.SystemType(in.SystemType), CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
}

func (h *handlers) CreateIntegration(ctx context.Context, req oapi.CreateIntegrationRequestObject) (oapi.CreateIntegrationResponseObject, error) {
	p := principalOf(ctx)
	now := workshop.MicrosOf(h.now())
	in, err := h.store.CreateIntegration(ctx, workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: p.OrgID,
		Name: req.Body.Name, SystemType: string(req.Body.SystemType), CreatedAt: now, UpdatedAt: now}, storeResponseInTx(ctx, func(in workshop.Integration) (int, any) { return http.StatusCreated, integrationOf(in) }))
	if err != nil {
		return nil, err
	}
	return oapi.CreateIntegration201JSONResponse(integrationOf(in)), nil
}

func (h *handlers) ListIntegrations(ctx context.Context, req oapi.ListIntegrationsRequestObject) (oapi.ListIntegrationsResponseObject, error) {
	page, err := workshop.ParsePageRequest(req.Params.Limit, deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	list, err := h.store.Integrations(ctx, principalOf(ctx).OrgID, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListIntegrations200JSONResponse{Data: mapList(list.Data, integrationOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) GetIntegration(ctx context.Context, req oapi.GetIntegrationRequestObject) (oapi.GetIntegrationResponseObject, error) {
	in, err := h.store.Integration(ctx, principalOf(ctx).OrgID, req.IntegrationId)
	if err != nil {
		return nil, err
	}
	return oapi.GetIntegration200JSONResponse(integrationOf(in)), nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
