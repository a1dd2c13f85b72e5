package store_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestRotatedSecretSignsForADay: after a rotation the claimed attempts
// carry the new secret and the old one, until the overlap ends.
func TestRotatedSecretSignsForADay(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		v := store.Visibility{OrgID: e.org.ID}
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		secret := workshop.NewSigningSecret()
		rotated, err := e.st.PatchWebhook(t.Context(), v, h.ID, store.WebhookPatch{SigningSecret: &secret}, workshop.MicrosOf(e.clk.Now()))
		if err != nil || rotated.SigningSecret != secret || rotated.PreviousSecret != h.SigningSecret {
			t.Fatalf("rotate = %+v, %v; want the new secret with the old one as previous", rotated, err)
		}
		tests := []struct {
			name  string
			after time.Duration
			want  []string
		}{
			{"just rotated", 0, []string{secret, h.SigningSecret}},
			{"a second before the day ends", workshop.SecretOverlap - time.Second, []string{secret, h.SigningSecret}},
			{"a day later", time.Second, []string{secret}},
		}
		for _, tt := range tests {
			e.clk.Advance(tt.after)
			walkIn(t, e.st, e.org.ID, e.loc.ID, workshop.MicrosOf(e.clk.Now()))
			fanOutAll(t, e.st)
			// Earlier deliveries whose lease ran out are claimed again too.
			as := claim(t, e.st, tt.name, 10)
			if len(as) == 0 {
				t.Fatalf("%s: nothing claimed", tt.name)
			}
			for _, a := range as {
				if !slices.Equal(a.Secrets, tt.want) {
					t.Errorf("%s: attempt %s signed with %d secrets, want %d (new first)", tt.name, a.DeliveryID, len(a.Secrets), len(tt.want))
				}
			}
		}
	})
}

// TestAttemptHistory: every attempt made under its lease is recorded with
// its number, time, duration, status, error and response excerpt; one
// whose lease was lost is not.
func TestAttemptHistory(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		ctx := t.Context()
		v := store.Visibility{OrgID: e.org.ID}
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		delays := []time.Duration{time.Minute}
		record := func(a store.Attempt, token string, r store.AttemptResult) {
			t.Helper()
			r.DeliveryID, r.WebhookID, r.Token, r.RoundAttempt, r.At = a.DeliveryID, a.WebhookID, token, a.RoundAttempt, e.clk.Now()
			if _, err := e.st.RecordAttempts(ctx, []store.AttemptResult{r}, delays); err != nil {
				t.Fatal(err)
			}
		}
		first := claim(t, e.st, "a", 10)[0]
		long := strings.Repeat("x", 1030) + "\x00\xff"
		record(first, "a", store.AttemptResult{StatusCode: 500, Error: "the endpoint answered 500", Duration: 1500 * time.Millisecond, Excerpt: long})
		record(first, "stale", store.AttemptResult{Succeeded: true, StatusCode: 200})
		e.clk.Advance(time.Minute)
		second := claim(t, e.st, "b", 10)[0]
		record(second, "b", store.AttemptResult{Succeeded: true, StatusCode: 204, Duration: 20 * time.Millisecond, Excerpt: "ok"})

		got, err := e.st.DeliveryAttempts(ctx, v, h.ID, first.DeliveryID)
		if err != nil || len(got) != 2 {
			t.Fatalf("DeliveryAttempts = %+v, %v; want 2 attempts", got, err)
		}
		a1, a2 := got[0], got[1]
		if a1.Attempt != 1 || a1.At != at(0) || a1.DurationMS != 1500 || a1.StatusCode == nil || *a1.StatusCode != 500 ||
			a1.Error == nil || *a1.Error != "the endpoint answered 500" || a1.Excerpt != strings.Repeat("x", 1030) {
			t.Errorf("attempt 1 = %+v, want number 1 at 0, 1500 ms, 500 with its error and the excerpt without NUL or bad UTF-8", a1)
		}
		if a2.Attempt != 2 || a2.At != at(time.Minute) || a2.DurationMS != 20 || a2.StatusCode == nil || *a2.StatusCode != 204 ||
			a2.Error != nil || a2.Excerpt != "ok" {
			t.Errorf("attempt 2 = %+v, want number 2 a minute later, 20 ms, 204, no error, excerpt ok", a2)
		}
		if _, err := e.st.DeliveryAttempts(ctx, store.Visibility{OrgID: "org_other"}, h.ID, first.DeliveryID); err == nil {
			t.Errorf("another organisation read the attempts")
		}
	})
}

// TestFailingEndpointIsDisabled: a registration whose every attempt failed
// for three days is disabled with a note and a webhook.disabled event,
// which other registrations may receive; a success in between resets the
// count, and activating it again clears the note.
func TestFailingEndpointIsDisabled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		ctx := t.Context()
		v := store.Visibility{OrgID: e.org.ID}
		failing := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		flaky := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		watcher := e.hook(t, e.org.ID, "", workshop.EventWebhookDisabled)
		delays := []time.Duration{time.Hour}
		// attempt delivers a new job to every registration: each fails
		// but those in ok.
		attempt := func(ok ...string) {
			t.Helper()
			walkIn(t, e.st, e.org.ID, e.loc.ID, workshop.MicrosOf(e.clk.Now()))
			fanOutAll(t, e.st)
			var rs []store.AttemptResult
			for _, a := range claim(t, e.st, e.clk.Now().String(), 100) {
				rs = append(rs, store.AttemptResult{DeliveryID: a.DeliveryID, WebhookID: a.WebhookID, Token: e.clk.Now().String(),
					RoundAttempt: a.RoundAttempt, At: e.clk.Now(), Succeeded: slices.Contains(ok, a.WebhookID), StatusCode: 503})
			}
			if _, err := e.st.RecordAttempts(ctx, rs, delays); err != nil {
				t.Fatal(err)
			}
		}
		attempt()
		e.clk.Advance(36 * time.Hour)
		attempt(flaky.ID)
		e.clk.Advance(36 * time.Hour)
		attempt()

		got, err := e.st.Webhook(ctx, v, failing.ID)
		if err != nil || got.IsActive || got.DisabledAt == nil || *got.DisabledAt != workshop.MicrosOf(e.clk.Now()) || got.DisabledReason == "" {
			t.Errorf("failing registration = %+v, %v; want inactive, disabled now with a reason", got, err)
		}
		if got, _ := e.st.Webhook(ctx, v, flaky.ID); !got.IsActive || got.DisabledAt != nil {
			t.Errorf("a registration with a success 36 hours ago was disabled: %+v", got)
		}
		fanOutAll(t, e.st)
		var notes []workshop.Delivery
		for _, d := range deliveriesOf(t, e.st, e.org.ID, watcher.ID) {
			if d.Event == workshop.EventWebhookDisabled {
				notes = append(notes, d)
			}
		}
		if len(notes) != 1 {
			t.Errorf("the watcher got %d webhook.disabled deliveries, want 1", len(notes))
		}
		for _, d := range deliveriesOf(t, e.st, e.org.ID, failing.ID) {
			if d.Event == workshop.EventWebhookDisabled || d.NextAttemptAt != nil {
				t.Errorf("the disabled registration has %+v: want no webhook.disabled and every delivery paused", d)
			}
		}

		active := true
		resumed, err := e.st.PatchWebhook(ctx, v, failing.ID, store.WebhookPatch{IsActive: &active}, workshop.MicrosOf(e.clk.Now()))
		if err != nil || !resumed.IsActive || resumed.DisabledAt != nil || resumed.DisabledReason != "" {
			t.Errorf("re-enabled = %+v, %v; want active with the note cleared", resumed, err)
		}
		// Its failures count afresh: one more failure does not disable it.
		e.clk.Advance(time.Hour)
		attempt()
		if got, _ := e.st.Webhook(ctx, v, failing.ID); !got.IsActive {
			t.Errorf("a re-enabled registration was disabled by its first failure: %+v", got)
		}
	})
}
