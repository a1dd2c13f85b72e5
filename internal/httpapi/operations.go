package httpapi

import (
	"context"
	"net/http"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// OperationsStore is what attendance, the catalog and the workshop
// settings need.
type OperationsStore interface {
	ClockIn(ctx context.Context, v store.Visibility, techID string, at time.Time, opts ...store.WriteOption) (workshop.Attendance, error)
	ClockOut(ctx context.Context, v store.Visibility, techID string, at time.Time, opts ...store.WriteOption) (workshop.Attendance, error)
	AttendanceRecords(ctx context.Context, f store.AttendanceFilter, p workshop.PageRequest) (workshop.Page[workshop.Attendance], error)
	CatalogItems(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.CatalogItem], error)
	PutCatalogItem(ctx context.Context, it workshop.CatalogItem) (store.CatalogPut, error)
	WithDurationStats(ctx context.Context, items []workshop.CatalogItem, now time.Time) error
	LocationsSettings(ctx context.Context, v store.Visibility) ([]store.LocationSettings, error)
}

func attendanceOf(a workshop.Attendance) oapi.Attendance {
	out := oapi.Attendance{Id: a.ID, TechId: a.TechID, LocationId: a.LocationID, ClockIn: a.ClockIn.Time,
		ClockOut: nullableTime(a.ClockOut), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	d, _ := time.Parse(time.DateOnly, a.WorkDate)
	out.WorkDate = openapi_types.Date{Time: d}
	return out
}

// clockTime is when a clock-in or -out happened: now, or a sent time that
// is not in the future beyond the skew.
func (h *handlers) clockTime(at *time.Time) (time.Time, error) {
	now := h.now()
	if at == nil {
		return now, nil
	}
	if at.After(now.Add(h.arrivalSkew)) {
		return now, workshop.Invalid("at", "at %s is in the future; attendance records what happened.", at.Format(time.RFC3339))
	}
	return *at, nil
}

func (h *handlers) ClockIn(ctx context.Context, req oapi.ClockInRequestObject) (oapi.ClockInResponseObject, error) {
	at, err := h.clockTime(req.Body.At)
	if err != nil {
		return nil, err
	}
	a, err := h.store.ClockIn(ctx, visibility(principalOf(ctx)), req.Body.TechId, at, storeResponseInTx(ctx, func(a workshop.Attendance) (int, any) { return http.StatusCreated, attendanceOf(a) }))
	if err != nil {
		return nil, err
	}
	return oapi.ClockIn201JSONResponse(attendanceOf(a)), nil
}

func (h *handlers) ClockOut(ctx context.Context, req oapi.ClockOutRequestObject) (oapi.ClockOutResponseObject, error) {
	at, err := h.clockTime(req.Body.At)
	if err != nil {
		return nil, err
	}
	a, err := h.store.ClockOut(ctx, visibility(principalOf(ctx)), req.Body.TechId, at, storeResponseInTx(ctx, func(a workshop.Attendance) (int, any) { return http.StatusOK, attendanceOf(a) }))
	if err != nil {
		return nil, err
	}
	return oapi.ClockOut200JSONResponse(attendanceOf(a)), nil
}

func (h *handlers) ListAttendance(ctx context.Context, req oapi.ListAttendanceRequestObject) (oapi.ListAttendanceResponseObject, error) {
	q := req.Params
	v, page, err := h.listScope(ctx, q.LocationId, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	f := store.AttendanceFilter{Visibility: v, TechID: deref(q.TechId)}
	if q.From != nil {
		f.From = q.From.Format(time.DateOnly)
	}
	if q.To != nil {
		f.To = q.To.Format(time.DateOnly)
	}
	list, err := h.store.AttendanceRecords(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListAttendance200JSONResponse{Data: mapList(list.Data, attendanceOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func catalogItemOf(it workshop.CatalogItem) oapi.CatalogItem {
	return oapi.CatalogItem{Id: it.ID, LocationId: it.LocationID, ServiceCode: it.ServiceCode, Name: it.Name,
		EstimatedDuration: it.EstimatedDuration, RequiredSkills: nonNilList(it.RequiredSkills), IsActive: it.IsActive,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, DurationStats: oapi.DurationStats{Samples: it.DurationStats.Samples,
			P50: nullableOf(it.DurationStats.P50), P80: nullableOf(it.DurationStats.P80)}}
}

func (h *handlers) ListCatalog(ctx context.Context, req oapi.ListCatalogRequestObject) (oapi.ListCatalogResponseObject, error) {
	v, page, err := h.listScope(ctx, req.Params.LocationId, req.Params.Limit, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	list, err := h.store.CatalogItems(ctx, v, page)
	if err != nil {
		return nil, err
	}
	if err := h.store.WithDurationStats(ctx, list.Data, h.now()); err != nil {
		return nil, err
	}
	return oapi.ListCatalog200JSONResponse{Data: mapList(list.Data, catalogItemOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) PutCatalogItem(ctx context.Context, req oapi.PutCatalogItemRequestObject) (oapi.PutCatalogItemResponseObject, error) {
	p, b := principalOf(ctx), req.Body
	if !workshop.ValidServiceCode(req.ServiceCode) {
		return nil, &workshop.Error{Code: workshop.CodeInvalidParameter, Field: "serviceCode",
			Detail: "serviceCode must be 1 to 64 letters, digits, _, - or ., starting with a letter or digit."}
	}
	loc, err := p.ResolveLocation(deref(b.LocationId), true)
	if err != nil {
		return nil, err
	}
	now := workshop.MicrosOf(h.now())
	it := workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: p.OrgID, LocationID: loc, ServiceCode: req.ServiceCode,
		Name: b.Name, EstimatedDuration: b.EstimatedDuration, RequiredSkills: []string{}, IsActive: true, CreatedAt: now, UpdatedAt: now}
	if b.RequiredSkills != nil {
		it.RequiredSkills = workshop.Dedupe(*b.RequiredSkills)
	}
	if b.IsActive != nil {
		it.IsActive = *b.IsActive
	}
	if err := workshop.CheckCatalogItem(it); err != nil {
		return nil, err
	}
	res, err := h.store.PutCatalogItem(ctx, it)
	if err != nil {
		return nil, err
	}
	items := []workshop.CatalogItem{res.Item}
	if err := h.store.WithDurationStats(ctx, items, h.now()); err != nil {
		return nil, err
	}
	res.Item = items[0]
	if res.Created {
		return oapi.PutCatalogItem201JSONResponse(catalogItemOf(res.Item)), nil
	}
	return oapi.PutCatalogItem200JSONResponse(catalogItemOf(res.Item)), nil
}

func settingsOf(ls store.LocationSettings) oapi.WorkshopSettings {
	return oapi.WorkshopSettings{LocationId: ls.LocationID, Timezone: ls.Timezone, BayBufferMinutes: ls.BayBufferMinutes,
		OperatingHours: mapList(ls.OperatingHours, func(o workshop.OpeningHours) oapi.OpeningHours {
			return oapi.OpeningHours{Day: oapi.Weekday(o.Day), Open: o.Open, Close: o.Close}
		}),
		Breaks: mapList(ls.Breaks, func(b workshop.Break) oapi.Break {
			return oapi.Break{Day: oapi.Weekday(b.Day), Start: b.Start, End: b.End}
		}),
		PlanningDurations: oapi.WorkshopSettingsPlanningDurations(ls.PlanningDurations), PromiseConfidence: ls.PromiseConfidence,
		CustomerDataRetentionDays: nullableOf(ls.CustomerDataRetentionDays)}
}

func (h *handlers) GetWorkshopSettings(ctx context.Context, _ oapi.GetWorkshopSettingsRequestObject) (oapi.GetWorkshopSettingsResponseObject, error) {
	p := principalOf(ctx)
	list, err := h.store.LocationsSettings(ctx, visibility(p))
	if err != nil {
		return nil, err
	}
	var out oapi.GetWorkshopSettings200JSONResponse
	if p.LocationID != "" {
		if len(list) != 1 {
			return nil, workshop.NotFound("location")
		}
		err = out.FromWorkshopSettings(settingsOf(list[0]))
	} else {
		err = out.FromWorkshopSettingsList(oapi.WorkshopSettingsList{Data: mapList(list, settingsOf)})
	}
	return out, err
}
