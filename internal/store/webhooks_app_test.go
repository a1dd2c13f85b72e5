package store_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestSendPing: the test event is one delivery to the registration asked,
// claimed and signed like any other, and no fan-out sends it elsewhere.
func TestSendPing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newWhEnv(t, db)
		v := store.Visibility{OrgID: e.org.ID}
		target := e.hook(t, e.org.ID, "", "job.created")
		bystander := e.hook(t, e.org.ID, "", workshop.EventNames...)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		e.clk.Advance(time.Second)

		d, err := e.st.SendPing(ctx, v, target.ID, workshop.MicrosOf(e.clk.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if d.Event != workshop.EventPing || d.Status != workshop.DeliveryPending || d.WebhookID != target.ID {
			t.Errorf("SendPing = %+v, want a pending ping of %s", d, target.ID)
		}
		fanOutAll(t, e.st)
		for _, dl := range deliveriesOf(t, e.st, e.org.ID, bystander.ID) {
			if dl.Event == workshop.EventPing {
				t.Errorf("the fan-out sent the ping to another registration: %+v", dl)
			}
		}
		var ping *store.Attempt
		for _, a := range claim(t, e.st, "tok", 10) {
			if a.DeliveryID == d.ID {
				ping = &a
			}
		}
		if ping == nil {
			t.Fatalf("the ping's delivery %s was not claimed", d.ID)
		}
		var data map[string]string
		if err := json.Unmarshal(ping.Event.Data, &data); err != nil || ping.Event.Name != workshop.EventPing ||
			len(data) != 1 || data["webhook_id"] != target.ID || !slices.Equal(ping.Secrets, []string{target.SigningSecret}) || ping.Attempt != 1 {
			t.Errorf("claimed ping %+v (data %s): want event ping, data {webhook_id: %s}, the target's secret, attempt 1", ping, ping.Event.Data, target.ID)
		}

		// The log, newest first: the ping after the job's delivery.
		recent, err := e.st.RecentDeliveries(ctx, v, target.ID, 10)
		if err != nil || len(recent) != 2 || recent[0].ID != d.ID || recent[1].Event != "job.created" {
			t.Errorf("RecentDeliveries = %+v, %v, want the ping, then job.created", recent, err)
		}

		paused := false
		if _, err := e.st.PatchWebhook(ctx, v, target.ID, store.WebhookPatch{IsActive: &paused}, workshop.MicrosOf(e.clk.Now())); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			v    store.Visibility
			id   string
			want workshop.Code
		}{
			{"a paused registration", v, target.ID, workshop.CodeInvalidTransition},
			{"another organisation's", store.Visibility{OrgID: createOrg(t, e.st, workshop.PlanPro).ID}, bystander.ID, workshop.CodeNotFound},
			{"another location's key", store.Visibility{OrgID: e.org.ID, LocationID: e.loc2.ID}, bystander.ID, workshop.CodeNotFound},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.st.SendPing(ctx, tc.v, tc.id, workshop.MicrosOf(e.clk.Now()))
				wantCode(t, err, tc.want)
			})
		}
	})
}

// TestPatchWebhookFromAVersion: an edit made from an older version of the
// registration is refused (stale_updated_at) and changes nothing; one made
// from the current version applies.
func TestPatchWebhookFromAVersion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newWhEnv(t, db)
		v := store.Visibility{OrgID: e.org.ID}
		w := e.hook(t, e.org.ID, "", "job.created")
		read := w.UpdatedAt
		e.clk.Advance(time.Second)
		paused := false
		if _, err := e.st.PatchWebhook(ctx, v, w.ID, store.WebhookPatch{IsActive: &paused}, workshop.MicrosOf(e.clk.Now())); err != nil {
			t.Fatal(err)
		}
		url := "https://hooks.example.com/new"
		_, err := e.st.PatchWebhook(ctx, v, w.ID, store.WebhookPatch{URL: &url, UpdatedAt: &read}, workshop.MicrosOf(e.clk.Now()))
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		now, err := e.st.Webhook(ctx, v, w.ID)
		if err != nil || now.URL != w.URL {
			t.Fatalf("after a stale edit: %+v, %v, want the URL unchanged", now, err)
		}
		e.clk.Advance(time.Second)
		got, err := e.st.PatchWebhook(ctx, v, w.ID, store.WebhookPatch{URL: &url, UpdatedAt: &now.UpdatedAt}, workshop.MicrosOf(e.clk.Now()))
		if err != nil || got.URL != url || got.UpdatedAt <= now.UpdatedAt {
			t.Errorf("an edit from the current version = %+v, %v, want the new URL and a later updatedAt", got, err)
		}
	})
}
