package httpapi

import (
	"context"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// ResourceStore is what the technician and bay operations need.
type ResourceStore interface {
	Technicians(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.Technician], error)
	Technician(ctx context.Context, v store.Visibility, id string) (workshop.Technician, error)
	PatchTechnicianStatus(ctx context.Context, v store.Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Technician, error)
	Bays(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.Bay], error)
	Bay(ctx context.Context, v store.Visibility, id string) (workshop.Bay, error)
	PatchBayStatus(ctx context.Context, v store.Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Bay, error)
}

func technicianOf(t workshop.Technician) oapi.Technician {
	return oapi.Technician{Id: t.ID, LocationId: t.LocationID, Name: t.Name, Skills: nonNilList(t.Skills), WipLimit: t.WIPLimit,
		Status: oapi.TechnicianStatus(t.Status), ClockedIn: t.ClockedIn, WorkingHours: weeklyHoursOf(t.WorkingHours), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

func bayOf(b workshop.Bay) oapi.Bay {
	return oapi.Bay{Id: b.ID, LocationId: b.LocationID, Name: b.Name, Equipment: nonNilList(b.Equipment), Services: nonNilList(b.Services),
		Status: oapi.BayStatus(b.Status), Occupied: b.Occupied, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
}

// listScope resolves the locationId filter and paging of a list.
func (h *handlers) listScope(ctx context.Context, locationID *string, limit *int, cursor *string) (store.Visibility, workshop.PageRequest, error) {
	p := principalOf(ctx)
	page, err := workshop.ParsePageRequest(limit, deref(cursor))
	if err != nil {
		return store.Visibility{}, page, err
	}
	loc, err := h.locationParam(ctx, p, deref(locationID), false)
	return store.Visibility{OrgID: p.OrgID, LocationID: loc}, page, err
}

func (h *handlers) ListTechnicians(ctx context.Context, req oapi.ListTechniciansRequestObject) (oapi.ListTechniciansResponseObject, error) {
	v, page, err := h.listScope(ctx, req.Params.LocationId, req.Params.Limit, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	list, err := h.store.Technicians(ctx, v, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListTechnicians200JSONResponse{Data: mapList(list.Data, technicianOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) GetTechnician(ctx context.Context, req oapi.GetTechnicianRequestObject) (oapi.GetTechnicianResponseObject, error) {
	t, err := h.store.Technician(ctx, visibility(principalOf(ctx)), req.TechnicianId)
	if err != nil {
		return nil, err
	}
	return oapi.GetTechnician200JSONResponse{Body: technicianOf(t), Headers: oapi.GetTechnician200ResponseHeaders{ETag: etagOf(t.UpdatedAt)}}, nil
}

func (h *handlers) PatchTechnician(ctx context.Context, req oapi.PatchTechnicianRequestObject) (oapi.PatchTechnicianResponseObject, error) {
	version, err := expectedVersion(req.Body.UpdatedAt, req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	t, err := h.store.PatchTechnicianStatus(ctx, visibility(principalOf(ctx)), req.TechnicianId, version.at, string(req.Body.Status), workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, version.failed(err)
	}
	return oapi.PatchTechnician200JSONResponse{Body: technicianOf(t), Headers: oapi.PatchTechnician200ResponseHeaders{ETag: etagOf(t.UpdatedAt)}}, nil
}

func (h *handlers) ListBays(ctx context.Context, req oapi.ListBaysRequestObject) (oapi.ListBaysResponseObject, error) {
	v, page, err := h.listScope(ctx, req.Params.LocationId, req.Params.Limit, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	list, err := h.store.Bays(ctx, v, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListBays200JSONResponse{Data: mapList(list.Data, bayOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) GetBay(ctx context.Context, req oapi.GetBayRequestObject) (oapi.GetBayResponseObject, error) {
	b, err := h.store.Bay(ctx, visibility(principalOf(ctx)), req.BayId)
	if err != nil {
		return nil, err
	}
	return oapi.GetBay200JSONResponse{Body: bayOf(b), Headers: oapi.GetBay200ResponseHeaders{ETag: etagOf(b.UpdatedAt)}}, nil
}

func (h *handlers) PatchBay(ctx context.Context, req oapi.PatchBayRequestObject) (oapi.PatchBayResponseObject, error) {
	version, err := expectedVersion(req.Body.UpdatedAt, req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	b, err := h.store.PatchBayStatus(ctx, visibility(principalOf(ctx)), req.BayId, version.at, string(req.Body.Status), workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, version.failed(err)
	}
	return oapi.PatchBay200JSONResponse{Body: bayOf(b), Headers: oapi.PatchBay200ResponseHeaders{ETag: etagOf(b.UpdatedAt)}}, nil
}
