package store

import (
	"context"
	"database/sql"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Webhook registrations and their delivery history. The dispatcher's side
// (fan-out, leases, attempt results) is in webhooks_dispatch.go.

const webhookColumns = `id, org_id, location_id, url, events, signing_secret, is_active, created_at, updated_at,
	previous_secret, previous_secret_until, disabled_at, disabled_reason`

func scanWebhook(sc scanner) (workshop.Webhook, error) {
	var w workshop.Webhook
	var loc, previous, reason sql.NullString
	var until, disabledAt sql.NullInt64
	err := sc.Scan(&w.ID, &w.OrgID, &loc, &w.URL, jsonList[[]string]{&w.Events}, &w.SigningSecret, &w.IsActive, &w.CreatedAt, &w.UpdatedAt,
		&previous, &until, &disabledAt, &reason)
	w.LocationID, w.PreviousSecret, w.DisabledReason = loc.String, previous.String, reason.String
	w.PreviousSecretUntil, w.DisabledAt = microsPtr(until), microsPtr(disabledAt)
	return w, err
}

// webhookVisible is the condition "the caller of v sees the registration":
// its organisation, and for a location key one made for its location.
const webhookVisible = `org_id = ? AND (? = '' OR location_id = ?)`

func visibleArgs(v Visibility) []any { return []any{v.OrgID, v.LocationID, v.LocationID} }

// CreateWebhook stores a new registration.
func (s *Store) CreateWebhook(ctx context.Context, w workshop.Webhook, opts ...WriteOption) (workshop.Webhook, error) {
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Webhook, error) {
		_, err := c.exec(ctx, `INSERT INTO webhooks (id, org_id, location_id, url, events, signing_secret, is_active, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.ID, w.OrgID, nullString(w.LocationID), w.URL, jsonText(w.Events), w.SigningSecret, w.IsActive, w.CreatedAt, w.UpdatedAt)
		return w, err
	})
}

// Webhook reads a registration the caller sees (with its secret: the API
// shows it only on create and rotation).
func (s *Store) Webhook(ctx context.Context, v Visibility, id string) (workshop.Webhook, error) {
	return visibleWebhook(ctx, s.read(), v, id, "")
}

func visibleWebhook(ctx context.Context, c conn, v Visibility, id, lock string) (workshop.Webhook, error) {
	args := append([]any{id}, visibleArgs(v)...)
	w, err := scanWebhook(c.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND `+webhookVisible+lock, args...))
	return w, notFoundOr(err, "webhook")
}

// Webhooks lists the registrations the caller sees, oldest first.
func (s *Store) Webhooks(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.Webhook], error) {
	after := p.After
	if after == nil {
		after = &workshop.Cursor{CreatedAt: -1}
	}
	return queryPage(ctx, s, `SELECT `+webhookColumns+` FROM webhooks
		WHERE `+webhookVisible+` AND (created_at, id) > (?, ?) ORDER BY created_at, id`,
		append(visibleArgs(v), after.CreatedAt, after.ID), p, scanWebhook, func(w workshop.Webhook) workshop.Cursor {
			return workshop.Cursor{CreatedAt: w.CreatedAt, ID: w.ID}
		})
}

// WebhookPatch changes a registration; nil fields stay as they are.
type WebhookPatch struct {
	URL      *string
	Events   []string // nil: unchanged
	IsActive *bool
	// SigningSecret is a rotated secret: the one it replaces keeps signing
	// beside it for workshop.SecretOverlap.
	SigningSecret *string
	// UpdatedAt, when set, is the version the change was made from: a
	// registration changed since is stale_updated_at (the application's
	// edit form; the API's PATCH sends none).
	UpdatedAt *workshop.Micros
}

// PatchWebhook applies a change. Deactivating pauses the registration's
// deliveries that still have attempts to make (no attempt is made while it
// is inactive); activating resumes them at once and clears the note of a
// disabling (its failures start counting afresh). A patch that changes
// nothing keeps updatedAt.
func (s *Store) PatchWebhook(ctx context.Context, v Visibility, id string, p WebhookPatch, now workshop.Micros) (workshop.Webhook, error) {
	return write(ctx, s, func(c conn) (workshop.Webhook, error) {
		w, err := visibleWebhook(ctx, c, v, id, s.forUpdate())
		if err != nil {
			return w, err
		}
		if p.UpdatedAt != nil {
			if err := workshop.CheckVersion("webhook", w.UpdatedAt, *p.UpdatedAt); err != nil {
				return w, err
			}
		}
		changed := false
		if p.URL != nil && *p.URL != w.URL {
			w.URL, changed = *p.URL, true
		}
		if p.Events != nil && jsonText(p.Events) != jsonText(w.Events) {
			w.Events, changed = p.Events, true
		}
		if p.SigningSecret != nil {
			until := workshop.MicrosOf(now.Time().Add(workshop.SecretOverlap))
			w.PreviousSecret, w.PreviousSecretUntil = w.SigningSecret, &until
			w.SigningSecret, changed = *p.SigningSecret, true
		}
		activation := p.IsActive != nil && *p.IsActive != w.IsActive
		if activation {
			w.IsActive, changed = *p.IsActive, true
			w.DisabledAt, w.DisabledReason = nil, ""
		}
		if !changed {
			return w, nil
		}
		w.UpdatedAt = workshop.NextMicros(now.Time(), w.UpdatedAt)
		if _, err := c.exec(ctx, `UPDATE webhooks SET url = ?, events = ?, signing_secret = ?, is_active = ?, updated_at = ?,
			previous_secret = ?, previous_secret_until = ?, disabled_at = ?, disabled_reason = ?,
			failing_since = CASE WHEN ? THEN NULL ELSE failing_since END WHERE id = ?`,
			w.URL, jsonText(w.Events), w.SigningSecret, w.IsActive, w.UpdatedAt, nullString(w.PreviousSecret), nullMicros(w.PreviousSecretUntil),
			nullMicros(w.DisabledAt), nullString(w.DisabledReason), activation, w.ID); err != nil {
			return w, err
		}
		if !activation {
			return w, nil
		}
		if w.IsActive {
			_, err = c.exec(ctx, `UPDATE deliveries SET next_attempt_at = ?, updated_at = ?
				WHERE webhook_id = ? AND status IN ('pending', 'failed') AND next_attempt_at IS NULL`, now, now, w.ID)
		} else {
			_, err = c.exec(ctx, `UPDATE deliveries SET next_attempt_at = NULL, updated_at = ?
				WHERE webhook_id = ? AND status IN ('pending', 'failed')`, now, w.ID)
		}
		return w, err
	})
}

// DeleteWebhook removes a registration with its deliveries, pending ones
// and history alike.
func (s *Store) DeleteWebhook(ctx context.Context, v Visibility, id string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		if _, err := visibleWebhook(ctx, c, v, id, s.forUpdate()); err != nil {
			return struct{}{}, err
		}
		// deliveries go with it (ON DELETE CASCADE), also any that a
		// concurrent fan-out is adding: its insert holds the row's key lock.
		_, err := c.exec(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		return struct{}{}, err
	})
	return err
}

const deliveryColumns = `id, webhook_id, event_id, event, status, attempts, last_status_code, last_error, next_attempt_at, created_at, updated_at`

func scanDelivery(sc scanner) (workshop.Delivery, error) {
	var d workshop.Delivery
	var code sql.NullInt64
	var lastErr sql.NullString
	var next sql.NullInt64
	err := sc.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.Event, &d.Status, &d.Attempts, &code, &lastErr, &next, &d.CreatedAt, &d.UpdatedAt)
	if code.Valid {
		n := int(code.Int64)
		d.LastStatusCode = &n
	}
	if lastErr.Valid {
		d.LastError = &lastErr.String
	}
	d.NextAttemptAt = microsPtr(next)
	return d, err
}

// Deliveries lists a registration's deliveries, oldest first.
func (s *Store) Deliveries(ctx context.Context, v Visibility, webhookID string, p workshop.PageRequest) (workshop.Page[workshop.Delivery], error) {
	return s.DeliveriesWhere(ctx, v, webhookID, DeliveryFilter{}, p)
}

// DeliveryFilter narrows a delivery history; an empty member does not.
type DeliveryFilter struct {
	Status string // pending, succeeded, failed or exhausted
	Event  string
}

// DeliveriesWhere is Deliveries narrowed by f.
func (s *Store) DeliveriesWhere(ctx context.Context, v Visibility, webhookID string, f DeliveryFilter, p workshop.PageRequest) (workshop.Page[workshop.Delivery], error) {
	if _, err := s.Webhook(ctx, v, webhookID); err != nil {
		return workshop.Page[workshop.Delivery]{}, err
	}
	after := p.After
	if after == nil {
		after = &workshop.Cursor{CreatedAt: -1}
	}
	where, args := `webhook_id = ? AND (created_at, id) > (?, ?)`, []any{webhookID, after.CreatedAt, after.ID}
	if f.Status != "" {
		where, args = where+` AND status = ?`, append(args, f.Status)
	}
	if f.Event != "" {
		where, args = where+` AND event = ?`, append(args, f.Event)
	}
	return queryPage(ctx, s, `SELECT `+deliveryColumns+` FROM deliveries WHERE `+where+` ORDER BY created_at, id`,
		args, p, scanDelivery, func(d workshop.Delivery) workshop.Cursor {
			return workshop.Cursor{CreatedAt: d.CreatedAt, ID: d.ID}
		})
}

// Delivery reads one delivery of a registration the caller sees.
func (s *Store) Delivery(ctx context.Context, v Visibility, webhookID, id string) (workshop.Delivery, error) {
	if _, err := s.Webhook(ctx, v, webhookID); err != nil {
		return workshop.Delivery{}, err
	}
	d, err := scanDelivery(s.read().queryRow(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE id = ? AND webhook_id = ?`, id, webhookID))
	return d, notFoundOr(err, "delivery")
}

// Redeliver schedules a new attempt of a delivery now, whatever its status:
// a fresh schedule of attempts (an exhausted delivery gets all of them
// again) while attempts go on counting. An attempt in flight loses its
// lease, so its result is not recorded over the new schedule. A delivery of
// an inactive registration cannot be redelivered (invalid_transition).
func (s *Store) Redeliver(ctx context.Context, v Visibility, webhookID, id string, now workshop.Micros, opts ...WriteOption) (workshop.Delivery, error) {
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Delivery, error) {
		w, err := visibleWebhook(ctx, c, v, webhookID, s.forUpdate())
		if err != nil {
			return workshop.Delivery{}, err
		}
		d, err := scanDelivery(c.queryRow(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE id = ? AND webhook_id = ?`+s.forUpdate(), id, webhookID))
		if err != nil {
			return d, notFoundOr(err, "delivery")
		}
		if !w.IsActive {
			return d, workshop.Errorf(workshop.CodeInvalidTransition, "The webhook to %s is inactive: set isActive to true before redelivering.", w.URL)
		}
		d.Status, d.NextAttemptAt, d.UpdatedAt = workshop.DeliveryPending, &now, workshop.NextMicros(now.Time(), d.UpdatedAt)
		_, err = c.exec(ctx, `UPDATE deliveries SET status = ?, round_attempts = 0, next_attempt_at = ?, lease_until = NULL, leased_by = NULL,
			updated_at = ? WHERE id = ?`, d.Status, now, d.UpdatedAt, d.ID)
		return d, err
	})
}
