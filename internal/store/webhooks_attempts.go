package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The attempt history of deliveries, and the disabling of an endpoint that
// fails every attempt for workshop.FailingDisables. Both are written by
// Settle, in the transaction that records the results.

// recordHistory adds an attempt row per result whose lease is still held
// (as recordResults records only those): its number is the delivery's
// attempt count under that lease.
func recordHistory(ctx context.Context, c conn, results []AttemptResult) error {
	for chunk := range slices.Chunk(results, 100) {
		var b strings.Builder
		args := make([]any, 0, 7*len(chunk))
		for i, r := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`(?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT))`)
			var code, errText any
			if r.StatusCode != 0 {
				code = r.StatusCode
			}
			if !r.Succeeded {
				errText = cleanText(truncate(r.Error, MaxErrorLength))
			}
			args = append(args, r.DeliveryID, r.Token, workshop.MicrosOf(r.At), r.Duration.Milliseconds(), code, errText, cleanText(r.Excerpt))
		}
		// VALUES names its columns column1, column2, ... on both databases.
		if _, err := c.exec(ctx, `INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error, response_excerpt)
			SELECT d.id, d.attempts, v.column3, v.column4, v.column5, v.column6, v.column7
			FROM (VALUES `+b.String()+`) AS v JOIN deliveries d ON d.id = v.column1 AND d.leased_by = v.column2`, args...); err != nil {
			return err
		}
	}
	return nil
}

// cleanText makes an endpoint's bytes storable text: valid UTF-8 (an
// excerpt may end inside a character) without NUL, which PostgreSQL
// refuses.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}

// DeliveryAttempt is one attempt of a delivery.
type DeliveryAttempt struct {
	Attempt    int
	At         workshop.Micros
	DurationMS int64
	StatusCode *int    // nil: no answer
	Error      *string // nil: it succeeded
	Excerpt    string  // the start of the answer's body
}

// DeliveryAttempts lists the attempts of a delivery of a registration the
// caller sees, oldest first.
func (s *Store) DeliveryAttempts(ctx context.Context, v Visibility, webhookID, deliveryID string) ([]DeliveryAttempt, error) {
	if _, err := s.Delivery(ctx, v, webhookID, deliveryID); err != nil {
		return nil, err
	}
	rows, err := s.read().query(ctx, `SELECT attempt, attempted_at, duration_ms, status_code, error, response_excerpt
		FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`, deliveryID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (DeliveryAttempt, error) {
		var a DeliveryAttempt
		var code sql.NullInt64
		var errText sql.NullString
		err := sc.Scan(&a.Attempt, &a.At, &a.DurationMS, &code, &errText, &a.Excerpt)
		if code.Valid {
			n := int(code.Int64)
			a.StatusCode = &n
		}
		if errText.Valid {
			a.Error = &errText.String
		}
		return a, err
	})
}

// trackFailing notes, per registration, since when every attempt failed:
// a success clears it, a failure starts it. A registration with a success
// among the results is not failing. It returns, locked, the active
// registrations failing for workshop.FailingDisables: disableWebhook's,
// once the results are recorded.
func (s *Store) trackFailing(ctx context.Context, c conn, results []AttemptResult) ([]workshop.Webhook, error) {
	var ok, failing []any
	for _, r := range results {
		switch {
		case r.WebhookID == "":
		case r.Succeeded && !slices.Contains(ok, any(r.WebhookID)):
			ok = append(ok, r.WebhookID)
		case !r.Succeeded && !slices.Contains(failing, any(r.WebhookID)):
			failing = append(failing, r.WebhookID)
		}
	}
	failing = slices.DeleteFunc(failing, func(id any) bool { return slices.Contains(ok, id) })
	now := workshop.MicrosOf(s.now())
	if len(ok) > 0 {
		if _, err := c.exec(ctx, `UPDATE webhooks SET failing_since = NULL WHERE failing_since IS NOT NULL AND id IN (`+placeholders(len(ok))+`)`,
			ok...); err != nil {
			return nil, err
		}
	}
	if len(failing) == 0 {
		return nil, nil
	}
	if _, err := c.exec(ctx, `UPDATE webhooks SET failing_since = ? WHERE failing_since IS NULL AND id IN (`+placeholders(len(failing))+`)`,
		append([]any{now}, failing...)...); err != nil {
		return nil, err
	}
	limit := workshop.MicrosOf(s.now().Add(-workshop.FailingDisables))
	rows, err := c.query(ctx, `SELECT `+webhookColumns+` FROM webhooks
		WHERE is_active AND failing_since <= ? AND id IN (`+placeholders(len(failing))+`) ORDER BY id`+s.forUpdate(),
		append([]any{limit}, failing...)...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanWebhook)
}

// disableWebhook deactivates a registration that kept failing, pauses its
// deliveries as a deactivation does, and records webhook.disabled: the
// organisation's other registrations may subscribe to it; this one, being
// inactive, gets none.
func disableWebhook(ctx context.Context, c conn, w workshop.Webhook, now workshop.Micros) error {
	w.IsActive, w.DisabledAt = false, &now
	w.DisabledReason = fmt.Sprintf("Every delivery attempt failed for %d days: fix the endpoint, then set isActive to true to resume.",
		int(workshop.FailingDisables.Hours()/24))
	w.UpdatedAt = workshop.NextMicros(now.Time(), w.UpdatedAt)
	if _, err := c.exec(ctx, `UPDATE webhooks SET is_active = ?, disabled_at = ?, disabled_reason = ?, updated_at = ? WHERE id = ?`,
		false, now, w.DisabledReason, w.UpdatedAt, w.ID); err != nil {
		return err
	}
	if _, err := c.exec(ctx, `UPDATE deliveries SET next_attempt_at = NULL, updated_at = ?
		WHERE webhook_id = ? AND status IN ('pending', 'failed')`, now, w.ID); err != nil {
		return err
	}
	return recordEvent(ctx, c, w.OrgID, w.LocationID, workshop.EventWebhookDisabled, now, webhookRow(w))
}

// webhookRow is a registration's stored row as event data, without its
// secrets.
func webhookRow(w workshop.Webhook) eventRow {
	return eventRow{
		{"created_at", w.CreatedAt.String()},
		{"disabled_at", microsOrNil(w.DisabledAt)},
		{"disabled_reason", w.DisabledReason},
		{"events", w.Events},
		{"id", w.ID},
		{"is_active", w.IsActive},
		{"location_id", nullableText(w.LocationID)},
		{"org_id", w.OrgID},
		{"updated_at", w.UpdatedAt.String()},
		{"url", w.URL},
	}
}

// nullableText is an optional column of event data: null when empty.
func nullableText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
