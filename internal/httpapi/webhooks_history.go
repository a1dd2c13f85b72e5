package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The history integrators read: the attempts of a delivery, and the recent
// events to catch up from.

// recentEvents is how far back GET /v1/platform/events reaches.
const recentEvents = 30 * 24 * time.Hour

func (h *handlers) ListDeliveryAttempts(ctx context.Context, req oapi.ListDeliveryAttemptsRequestObject) (oapi.ListDeliveryAttemptsResponseObject, error) {
	list, err := h.store.DeliveryAttempts(ctx, visibility(principalOf(ctx)), req.WebhookId, req.DeliveryId)
	if err != nil {
		return nil, err
	}
	return oapi.ListDeliveryAttempts200JSONResponse{Data: mapList(list, func(a store.DeliveryAttempt) oapi.DeliveryAttempt {
		return oapi.DeliveryAttempt{Attempt: a.Attempt, AttemptedAt: a.At, DurationMs: int(a.DurationMS), StatusCode: nullableOf(a.StatusCode),
			Error: nullableOf(a.Error), ResponseExcerpt: a.Excerpt}
	})}, nil
}

func (h *handlers) ListEvents(ctx context.Context, req oapi.ListEventsRequestObject) (oapi.ListEventsResponseObject, error) {
	page, err := workshop.ParsePageRequest(req.Params.Limit, deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	f := store.EventFilter{After: workshop.MicrosOf(h.now().Add(-recentEvents))}
	if req.Params.Event != nil {
		f.Name = string(*req.Params.Event)
	}
	if t := req.Params.OccurredAfter; t != nil && workshop.MicrosOf(*t) > f.After {
		f.After = workshop.MicrosOf(*t)
	}
	list, err := h.store.RecentEvents(ctx, visibility(principalOf(ctx)), f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListEvents200JSONResponse{Data: mapList(list.Data, func(e store.Event) oapi.Event {
		// data as stored, byte for byte: the delivery's body carries it so.
		return oapi.Event{Id: e.ID, Event: oapi.EventName(e.Name), OccurredAt: e.OccurredAt, Data: json.RawMessage(e.Data)}
	}), NextCursor: cursorOf(list.NextCursor)}, nil
}
