package httpapi

import (
	"context"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
)

// defaultDays is how many days the days to offer and the capacity answer
// without a days parameter (contract section 8).
const defaultDays = 7

func daysOf(days *int) int {
	if days == nil {
		return defaultDays
	}
	return *days
}

func dateParam(d *openapi_types.Date) string {
	if d == nil {
		return ""
	}
	return d.Format(time.DateOnly)
}

func (h *handlers) GetAvailabilityDays(ctx context.Context, req oapi.GetAvailabilityDaysRequestObject) (oapi.GetAvailabilityDaysResponseObject, error) {
	q := req.Params
	loc, err := h.locationParam(ctx, principalOf(ctx), deref(q.LocationId), true)
	if err != nil {
		return nil, err
	}
	steps, err := h.quoteSteps(ctx, loc, q.ServiceCodes)
	if err != nil {
		return nil, err
	}
	offers, err := h.plans.AvailabilityDays(ctx, loc, h.now(), dateParam(q.From), daysOf(q.Days), steps)
	if err != nil {
		return nil, err
	}
	out := oapi.AvailabilityDays{LocationId: loc, Days: make([]oapi.AvailabilityDay, 0, len(offers.Days))}
	for _, d := range offers.Days {
		out.Days = append(out.Days, oapi.AvailabilityDay{Date: openapi_types.Date{Time: d.Date}, DropOff: d.DropOff.In(offers.Zone),
			EarliestCompletion: nullableOf(d.EarliestCompletion), SameDay: d.SameDay})
	}
	return oapi.GetAvailabilityDays200JSONResponse(out), nil
}

func (h *handlers) GetCapacity(ctx context.Context, req oapi.GetCapacityRequestObject) (oapi.GetCapacityResponseObject, error) {
	q := req.Params
	loc, err := h.locationParam(ctx, principalOf(ctx), deref(q.LocationId), true)
	if err != nil {
		return nil, err
	}
	days, err := h.plans.Capacity(ctx, loc, h.now(), dateParam(q.From), daysOf(q.Days))
	if err != nil {
		return nil, err
	}
	out := oapi.Capacity{LocationId: loc, Days: make([]oapi.CapacityDay, 0, len(days))}
	for _, d := range days {
		day := oapi.CapacityDay{Date: openapi_types.Date{Time: d.Date}, AvailableMinutes: d.Available, PlannedMinutes: d.Planned,
			Technicians: make([]oapi.TechnicianCapacity, 0, len(d.Technicians))}
		for _, t := range d.Technicians {
			day.Technicians = append(day.Technicians, oapi.TechnicianCapacity{TechId: t.TechID, AvailableMinutes: t.Available, PlannedMinutes: t.Planned})
		}
		out.Days = append(out.Days, day)
	}
	return oapi.GetCapacity200JSONResponse(out), nil
}
