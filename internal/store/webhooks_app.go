package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The developer settings' side of webhooks: the test delivery and the
// delivery log, newest first.

// SendPing makes a test delivery to one registration: event ping, data
// {"webhook_id": ...}, due now, signed and retried by the dispatcher like
// any other delivery. The event goes to the outbox (a delivery's request
// is made from its event) and its one delivery is written in the same
// transaction; ping is not subscribable, so the fan-out, when it reaches
// the event, makes no delivery of it to any registration. An inactive
// registration gets none (invalid_transition), as a redelivery.
func (s *Store) SendPing(ctx context.Context, v Visibility, webhookID string, now workshop.Micros) (workshop.Delivery, error) {
	return write(ctx, s, func(c conn) (workshop.Delivery, error) {
		w, err := visibleWebhook(ctx, c, v, webhookID, s.forUpdate())
		if err != nil {
			return workshop.Delivery{}, err
		}
		if !w.IsActive {
			return workshop.Delivery{}, workshop.Errorf(workshop.CodeInvalidTransition,
				"The webhook %s is paused: resume it before sending a test event.", w.ID)
		}
		args, err := eventArgs(nil, w.OrgID, w.LocationID, workshop.EventPing, now, eventRow{{"webhook_id", w.ID}})
		if err != nil {
			return workshop.Delivery{}, err
		}
		e := fanOutEvent{Event: Event{ID: args[0].(string), OrgID: w.OrgID, LocationID: w.LocationID, Name: workshop.EventPing, OccurredAt: now}}
		if err := c.queryRow(ctx, eventInsert+valueRows(1, eventWidth)+` RETURNING seq`, args...).Scan(&e.Seq); err != nil {
			return workshop.Delivery{}, err
		}
		c.ev.n++ // the dispatcher of this process looks at once
		d := newDelivery{id: workshop.NewID(workshop.PrefixDelivery), hook: w, event: e}
		if err := insertDeliveries(ctx, c, []newDelivery{d}, now.Time()); err != nil {
			return workshop.Delivery{}, err
		}
		return workshop.Delivery{ID: d.id, WebhookID: w.ID, EventID: e.ID, Event: e.Name, Status: workshop.DeliveryPending,
			NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now}, nil
	})
}

// RecentDeliveries lists a registration's latest deliveries, newest first.
func (s *Store) RecentDeliveries(ctx context.Context, v Visibility, webhookID string, limit int) ([]workshop.Delivery, error) {
	if _, err := s.Webhook(ctx, v, webhookID); err != nil {
		return nil, err
	}
	rows, err := s.read().query(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE webhook_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, webhookID, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanDelivery)
}
