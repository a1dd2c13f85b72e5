package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// CalendarStore is what absences and bay maintenance windows need.
type CalendarStore interface {
	CreateAbsence(ctx context.Context, v store.Visibility, a workshop.Absence, opts ...store.WriteOption) (workshop.Absence, error)
	DeleteAbsence(ctx context.Context, v store.Visibility, id string) error
	Absences(ctx context.Context, f store.CalendarFilter, p workshop.PageRequest) (workshop.Page[workshop.Absence], error)
	CreateMaintenanceWindow(ctx context.Context, v store.Visibility, w workshop.MaintenanceWindow, opts ...store.WriteOption) (workshop.MaintenanceWindow, error)
	DeleteMaintenanceWindow(ctx context.Context, v store.Visibility, bayID, id string) error
	MaintenanceWindows(ctx context.Context, f store.CalendarFilter, p workshop.PageRequest) (workshop.Page[workshop.MaintenanceWindow], error)
}

func weeklyHoursOf(h []workshop.WeeklyHours) nullable.Nullable[[]oapi.WeeklyHours] {
	if h == nil {
		return nullOf[[]oapi.WeeklyHours]()
	}
	out := make([]oapi.WeeklyHours, len(h))
	for i, w := range h {
		out[i] = oapi.WeeklyHours{Day: oapi.Weekday(w.Day), Start: w.Start, End: w.End}
	}
	return nullable.NewNullableWithValue(out)
}

func absenceOf(a workshop.Absence) oapi.Absence {
	return oapi.Absence{Id: a.ID, TechId: a.TechID, LocationId: a.LocationID, Start: a.Start, End: a.End,
		Reason: oapi.AbsenceReason(a.Reason), Note: nullableText(a.Note), CreatedAt: workshop.MicrosOf(a.CreatedAt)}
}

func windowOf(w workshop.MaintenanceWindow) oapi.MaintenanceWindow {
	return oapi.MaintenanceWindow{Id: w.ID, BayId: w.BayID, LocationId: w.LocationID, Start: w.Start, End: w.End,
		Reason: nullableText(w.Reason), CreatedAt: workshop.MicrosOf(w.CreatedAt)}
}

// nullableText is "" as null.
func nullableText(s string) nullable.Nullable[string] {
	if s == "" {
		return nullableOf[string](nil)
	}
	return nullableOf(&s)
}

// calendarDates is a list's from/to as local dates ("" open-ended).
func calendarDates(from, to *openapi_types.Date) (string, string) {
	var f, t string
	if from != nil {
		f = from.Format(time.DateOnly)
	}
	if to != nil {
		t = to.Format(time.DateOnly)
	}
	return f, t
}

func (h *handlers) ListAbsences(ctx context.Context, req oapi.ListAbsencesRequestObject) (oapi.ListAbsencesResponseObject, error) {
	q := req.Params
	v, page, err := h.listScope(ctx, q.LocationId, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	f := store.CalendarFilter{Visibility: v, Owner: deref(q.TechId)}
	f.From, f.To = calendarDates(q.From, q.To)
	list, err := h.store.Absences(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListAbsences200JSONResponse{Data: mapList(list.Data, absenceOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) CreateAbsence(ctx context.Context, req oapi.CreateAbsenceRequestObject) (oapi.CreateAbsenceResponseObject, error) {
	b := req.Body
	a := workshop.Absence{TechID: b.TechId, Start: b.Start, End: b.End, Reason: string(b.Reason)}
	if note := optionalNullable(b.Note); note != nil && *note != nil {
		a.Note = **note
	}
	a, err := h.store.CreateAbsence(ctx, visibility(principalOf(ctx)), a,
		storeResponseInTx(ctx, func(a workshop.Absence) (int, any) { return http.StatusCreated, absenceOf(a) }))
	if err != nil {
		return nil, err
	}
	return oapi.CreateAbsence201JSONResponse(absenceOf(a)), nil
}

func (h *handlers) DeleteAbsence(ctx context.Context, req oapi.DeleteAbsenceRequestObject) (oapi.DeleteAbsenceResponseObject, error) {
	if err := h.store.DeleteAbsence(ctx, visibility(principalOf(ctx)), req.AbsenceId); err != nil {
		return nil, err
	}
	return oapi.DeleteAbsence204Response{}, nil
}

func (h *handlers) ListBayMaintenanceWindows(ctx context.Context, req oapi.ListBayMaintenanceWindowsRequestObject) (oapi.ListBayMaintenanceWindowsResponseObject, error) {
	q := req.Params
	v, page, err := h.listScope(ctx, nil, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	if _, err := h.store.Bay(ctx, v, req.BayId); err != nil {
		return nil, err
	}
	f := store.CalendarFilter{Visibility: v, Owner: req.BayId}
	f.From, f.To = calendarDates(q.From, q.To)
	list, err := h.store.MaintenanceWindows(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListBayMaintenanceWindows200JSONResponse{Data: mapList(list.Data, windowOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) ListMaintenanceWindows(ctx context.Context, req oapi.ListMaintenanceWindowsRequestObject) (oapi.ListMaintenanceWindowsResponseObject, error) {
	q := req.Params
	v, page, err := h.listScope(ctx, q.LocationId, q.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	f := store.CalendarFilter{Visibility: v, Owner: deref(q.BayId)}
	f.From, f.To = calendarDates(q.From, q.To)
	list, err := h.store.MaintenanceWindows(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListMaintenanceWindows200JSONResponse{Data: mapList(list.Data, windowOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) CreateMaintenanceWindow(ctx context.Context, req oapi.CreateMaintenanceWindowRequestObject) (oapi.CreateMaintenanceWindowResponseObject, error) {
	b := req.Body
	w := workshop.MaintenanceWindow{BayID: req.BayId, Start: b.Start, End: b.End}
	if reason := optionalNullable(b.Reason); reason != nil && *reason != nil {
		w.Reason = **reason
	}
	w, err := h.store.CreateMaintenanceWindow(ctx, visibility(principalOf(ctx)), w,
		storeResponseInTx(ctx, func(w workshop.MaintenanceWindow) (int, any) { return http.StatusCreated, windowOf(w) }))
	if err != nil {
		return nil, err
	}
	return oapi.CreateMaintenanceWindow201JSONResponse(windowOf(w)), nil
}

func (h *handlers) DeleteMaintenanceWindow(ctx context.Context, req oapi.DeleteMaintenanceWindowRequestObject) (oapi.DeleteMaintenanceWindowResponseObject, error) {
	if err := h.store.DeleteMaintenanceWindow(ctx, visibility(principalOf(ctx)), req.BayId, req.WindowId); err != nil {
		return nil, err
	}
	return oapi.DeleteMaintenanceWindow204Response{}, nil
}
