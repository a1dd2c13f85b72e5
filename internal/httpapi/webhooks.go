package httpapi

import (
	"context"
	"net/http"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// WebhookStore is what the webhook operations need.
type WebhookStore interface {
	CreateWebhook(ctx context.Context, w workshop.Webhook, opts ...store.WriteOption) (workshop.Webhook, error)
	Webhook(ctx context.Context, v store.Visibility, id string) (workshop.Webhook, error)
	Webhooks(ctx context.Context, v store.Visibility, p workshop.PageRequest) (workshop.Page[workshop.Webhook], error)
	PatchWebhook(ctx context.Context, v store.Visibility, id string, p store.WebhookPatch, now workshop.Micros) (workshop.Webhook, error)
	DeleteWebhook(ctx context.Context, v store.Visibility, id string) error
	DeliveriesWhere(ctx context.Context, v store.Visibility, webhookID string, f store.DeliveryFilter, p workshop.PageRequest) (workshop.Page[workshop.Delivery], error)
	Redeliver(ctx context.Context, v store.Visibility, webhookID, id string, now workshop.Micros, opts ...store.WriteOption) (workshop.Delivery, error)
	DeliveryAttempts(ctx context.Context, v store.Visibility, webhookID, deliveryID string) ([]store.DeliveryAttempt, error)
	RecentEvents(ctx context.Context, v store.Visibility, f store.EventFilter, p workshop.PageRequest) (workshop.Page[store.Event], error)
}

// webhookOf presents a registration without its secret.
func webhookOf(w workshop.Webhook) oapi.Webhook {
	return oapi.Webhook{Id: w.ID, Url: w.URL, Events: mapList(w.Events, func(e string) oapi.EventName { return oapi.EventName(e) }),
		IsActive: w.IsActive, LocationId: optional(w.LocationID), PreviousSecretExpiresAt: nullableMicros(w.PreviousSecretUntil),
		DisabledAt: nullableMicros(w.DisabledAt), DisabledReason: optional(w.DisabledReason), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// webhookWithSecret presents a registration with its secret when withSecret
// (create and rotation).
func webhookWithSecret(w workshop.Webhook, withSecret bool) oapi.WebhookWithSecret {
	o := webhookOf(w)
	out := oapi.WebhookWithSecret{Id: o.Id, Url: o.Url, Events: o.Events, IsActive: o.IsActive, LocationId: o.LocationId,
		PreviousSecretExpiresAt: o.PreviousSecretExpiresAt, DisabledAt: o.DisabledAt, DisabledReason: o.DisabledReason,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	if withSecret {
		out.SigningSecret = &w.SigningSecret
	}
	return out
}

func deliveryOf(d workshop.Delivery) oapi.Delivery {
	return oapi.Delivery{Id: d.ID, EventId: d.EventID, Event: oapi.DeliveryEventName(d.Event), Status: oapi.DeliveryStatus(d.Status),
		Attempts: d.Attempts, LastStatusCode: nullableOf(d.LastStatusCode), LastError: nullableOf(d.LastError),
		NextAttemptAt: nullableMicros(d.NextAttemptAt), CreatedAt: d.CreatedAt}
}

// checkWebhookURL validates a url with the SSRF guard (422 on url).
func (h *handlers) checkWebhookURL(ctx context.Context, raw string) error {
	return h.webhookGuard.CheckRegistrationURL(ctx, raw)
}

func (h *handlers) CreateWebhook(ctx context.Context, req oapi.CreateWebhookRequestObject) (oapi.CreateWebhookResponseObject, error) {
	p, b := principalOf(ctx), req.Body
	var v workshop.Validation
	events, err := workshop.CheckWebhookEvents(b.Events)
	if err := v.Check(err); err != nil {
		return nil, err
	}
	if err := v.Check(h.checkWebhookURL(ctx, b.Url)); err != nil {
		return nil, err
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := workshop.MicrosOf(h.now())
	w := workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: p.OrgID, LocationID: p.LocationID, URL: b.Url,
		Events: events, SigningSecret: workshop.NewSigningSecret(), IsActive: b.IsActive == nil || *b.IsActive, CreatedAt: now, UpdatedAt: now}
	w, err = h.store.CreateWebhook(ctx, w, storeResponseInTx(ctx, func(w workshop.Webhook) (int, any) { return http.StatusCreated, webhookWithSecret(w, true) }))
	if err != nil {
		return nil, err
	}
	return oapi.CreateWebhook201JSONResponse(webhookWithSecret(w, true)), nil
}

func (h *handlers) ListWebhooks(ctx context.Context, req oapi.ListWebhooksRequestObject) (oapi.ListWebhooksResponseObject, error) {
	page, err := workshop.ParsePageRequest(req.Params.Limit, deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	list, err := h.store.Webhooks(ctx, visibility(principalOf(ctx)), page)
	if err != nil {
		return nil, err
	}
	return oapi.ListWebhooks200JSONResponse{Data: mapList(list.Data, webhookOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) GetWebhook(ctx context.Context, req oapi.GetWebhookRequestObject) (oapi.GetWebhookResponseObject, error) {
	w, err := h.store.Webhook(ctx, visibility(principalOf(ctx)), req.WebhookId)
	if err != nil {
		return nil, err
	}
	return oapi.GetWebhook200JSONResponse{Body: webhookOf(w), Headers: oapi.GetWebhook200ResponseHeaders{ETag: etagOf(w.UpdatedAt)}}, nil
}

func (h *handlers) PatchWebhook(ctx context.Context, req oapi.PatchWebhookRequestObject) (oapi.PatchWebhookResponseObject, error) {
	b, v := req.Body, visibility(principalOf(ctx))
	// The registration must be visible before anything about the body is
	// said (another organisation's id is 404 whatever is sent).
	if _, err := h.store.Webhook(ctx, v, req.WebhookId); err != nil {
		return nil, err
	}
	version, sent, err := ifMatchVersion(req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	var patch store.WebhookPatch
	if sent {
		patch.UpdatedAt = &version.at
	}
	var vs workshop.Validation
	if b.Events != nil {
		events, err := workshop.CheckWebhookEvents(*b.Events)
		if err := vs.Check(err); err != nil {
			return nil, err
		}
		patch.Events = events
	}
	if b.Url != nil {
		if err := vs.Check(h.checkWebhookURL(ctx, *b.Url)); err != nil {
			return nil, err
		}
		patch.URL = b.Url
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	patch.IsActive = b.IsActive
	rotate := b.RotateSecret != nil && *b.RotateSecret
	if rotate {
		secret := workshop.NewSigningSecret()
		patch.SigningSecret = &secret
	}
	w, err := h.store.PatchWebhook(ctx, v, req.WebhookId, patch, workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, version.failed(err)
	}
	return oapi.PatchWebhook200JSONResponse{Body: webhookWithSecret(w, rotate), Headers: oapi.PatchWebhook200ResponseHeaders{ETag: etagOf(w.UpdatedAt)}}, nil
}

func (h *handlers) DeleteWebhook(ctx context.Context, req oapi.DeleteWebhookRequestObject) (oapi.DeleteWebhookResponseObject, error) {
	if err := h.store.DeleteWebhook(ctx, visibility(principalOf(ctx)), req.WebhookId); err != nil {
		return nil, err
	}
	return oapi.DeleteWebhook204Response{}, nil
}

func (h *handlers) ListWebhookDeliveries(ctx context.Context, req oapi.ListWebhookDeliveriesRequestObject) (oapi.ListWebhookDeliveriesResponseObject, error) {
	page, err := workshop.ParsePageRequest(req.Params.Limit, deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	var f store.DeliveryFilter
	if req.Params.Status != nil {
		f.Status = string(*req.Params.Status)
	}
	if req.Params.Event != nil {
		f.Event = string(*req.Params.Event)
	}
	list, err := h.store.DeliveriesWhere(ctx, visibility(principalOf(ctx)), req.WebhookId, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListWebhookDeliveries200JSONResponse{Data: mapList(list.Data, deliveryOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

func (h *handlers) RedeliverWebhookDelivery(ctx context.Context, req oapi.RedeliverWebhookDeliveryRequestObject) (oapi.RedeliverWebhookDeliveryResponseObject, error) {
	d, err := h.store.Redeliver(ctx, visibility(principalOf(ctx)), req.WebhookId, req.DeliveryId, workshop.MicrosOf(h.now()), storeResponseInTx(ctx, func(d workshop.Delivery) (int, any) { return http.StatusAccepted, deliveryOf(d) }))
	if err != nil {
		return nil, err
	}
	return oapi.RedeliverWebhookDelivery202JSONResponse(deliveryOf(d)), nil
}
