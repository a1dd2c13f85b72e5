package workshop

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// Webhook is a registration: where an organisation's events are delivered.
// LocationID is set when it was made with a location-scoped key: it then
// receives only that location's events.
type Webhook struct {
	ID            string
	OrgID         string
	LocationID    string // "" for every location of the organisation
	URL           string
	Events        []string
	SigningSecret string // shown on create and rotation only
	// PreviousSecret, the secret a rotation replaced, still signs beside
	// SigningSecret until PreviousSecretUntil (SecretOverlap after it).
	PreviousSecret      string
	PreviousSecretUntil *Micros
	IsActive            bool
	// DisabledAt and DisabledReason are set when the service deactivated
	// the registration itself (an endpoint failing for FailingDisables);
	// activating it again clears them.
	DisabledAt     *Micros
	DisabledReason string
	CreatedAt      Micros
	UpdatedAt      Micros
}

// SecretOverlap is how long a rotated secret keeps signing beside the new
// one: receivers switch within it without losing a delivery.
const SecretOverlap = 24 * time.Hour

// FailingDisables is how long an endpoint may fail every attempt before
// it is disabled.
const FailingDisables = 72 * time.Hour

// EventWebhookDisabled is recorded when an endpoint is disabled for failing.
const EventWebhookDisabled = "webhook.disabled"

// Secrets are the secrets that sign a delivery made at now, newest first:
// the signing secret, and the previous one while its overlap lasts.
func (w Webhook) Secrets(now Micros) []string {
	if w.PreviousSecret != "" && w.PreviousSecretUntil != nil && now < *w.PreviousSecretUntil {
		return []string{w.SigningSecret, w.PreviousSecret}
	}
	return []string{w.SigningSecret}
}

// Subscribes tells whether the registration wants an event of name that
// happened in location.
func (w Webhook) Subscribes(name, location string) bool {
	if w.LocationID != "" && w.LocationID != location {
		return false
	}
	return slices.Contains(w.Events, name)
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"   // waiting for its first attempt (or redelivered)
	DeliverySucceeded = "succeeded" // an attempt got a 2xx
	DeliveryFailed    = "failed"    // the last attempt failed; another is scheduled
	DeliveryExhausted = "exhausted" // every attempt of its schedule failed
)

// Delivery is one event on its way to one registration.
type Delivery struct {
	ID             string
	WebhookID      string
	EventID        string
	Event          string
	Status         string
	Attempts       int
	LastStatusCode *int
	LastError      *string
	NextAttemptAt  *Micros
	CreatedAt      Micros
	UpdatedAt      Micros
}

// SigningSecretPrefix starts every signing secret (the Standard Webhooks form).
const SigningSecretPrefix = "whsec_"

// NewSigningSecret returns whsec_ and the standard base64 of 32 random bytes.
func NewSigningSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return SigningSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// CheckWebhookEvents validates a subscription list: at least one name, each
// subscribable (422 on field events naming the unknown ones). It returns the
// names without repeats, in the order sent.
func CheckWebhookEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, Invalid("events", "events must name at least one event: %s.", strings.Join(EventNames, ", "))
	}
	var out, unknown []string
	for _, e := range events {
		if !ValidEvent(e) {
			unknown = append(unknown, e)
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(unknown) > 0 {
		return nil, Invalid("events", "Unknown event name %s; subscribable events: %s.", strings.Join(unknown, ", "), strings.Join(EventNames, ", "))
	}
	return out, nil
}
