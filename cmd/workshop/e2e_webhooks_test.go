package main

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// matrixHookURL is where the matrix's registrations point: a loopback port
// where nothing listens (the test server allows loopback), so their
// deliveries fail without leaving the machine.
const matrixHookURL = "http://127.0.0.1:9/matrix"

// webhook stores a registration for job.created directly (the free plan
// cannot make one through the API); locationID "" covers every location.
func (w *testWorld) webhook(orgID, locationID string) workshop.Webhook {
	w.t.Helper()
	return w.webhookTo(orgID, locationID, matrixHookURL)
}

// webhookTo stores a registration for job.created to url.
func (w *testWorld) webhookTo(orgID, locationID, url string) workshop.Webhook {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	wh, err := w.st.CreateWebhook(context.Background(), workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: orgID,
		LocationID: locationID, URL: url, Events: []string{workshop.EventJobCreated}, SigningSecret: workshop.NewSigningSecret(),
		IsActive: true, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		w.t.Fatalf("create webhook: %v", err)
	}
	return wh
}

// delivery makes a delivery of the registration webhookID (a new one when
// ""): a job created in the location, fanned out here (or by a running
// dispatcher, whichever comes first).
func (w *testWorld) delivery(orgID, locationID, webhookID string) workshop.Delivery {
	w.t.Helper()
	if webhookID == "" {
		webhookID = w.webhook(orgID, "").ID
	}
	job := w.job(orgID, locationID)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v := store.Visibility{OrgID: orgID}
	for {
		if _, _, err := w.st.FanOut(ctx, 500); err != nil {
			w.t.Fatalf("fan out: %v", err)
		}
		page, err := w.st.Deliveries(ctx, v, webhookID, workshop.PageRequest{Limit: 200})
		if err != nil {
			w.t.Fatalf("deliveries: %v", err)
		}
		for _, d := range page.Data {
			if d.Event == workshop.EventJobCreated {
				return d
			}
		}
		select {
		case <-ctx.Done():
			w.t.Fatalf("no delivery of job %s to %s", job.ID, webhookID)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// hookOut is a registration as the API answers it.
type hookOut struct {
	ID            string   `json:"id"`
	URL           string   `json:"url"`
	Events        []string `json:"events"`
	IsActive      bool     `json:"isActive"`
	LocationID    *string  `json:"locationId"`
	SigningSecret string   `json:"signingSecret"`
	// PreviousSecretExpiresAt: after a rotation, until when the old
	// secret signs too.
	PreviousSecretExpiresAt *string `json:"previousSecretExpiresAt"`
}

type deliveryOut struct {
	ID             string  `json:"id"`
	EventID        string  `json:"eventId"`
	Event          string  `json:"event"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	LastStatusCode *int    `json:"lastStatusCode"`
	LastError      *string `json:"lastError"`
	NextAttemptAt  *string `json:"nextAttemptAt"`
}

// hookAPI calls the webhook operations of a server.
type hookAPI struct {
	t   *testing.T
	url string
}

func (a hookAPI) call(method, path, key string, body any) *apitest.Response {
	a.t.Helper()
	return apitest.Call(a.t, a.url, apitest.Request{Method: method, Path: path, Key: key, Body: body})
}

func (a hookAPI) create(key string, body map[string]any) hookOut {
	a.t.Helper()
	r := a.call("POST", "/v1/platform/webhooks", key, body)
	if r.Status != 201 {
		a.t.Fatalf("create webhook: got %d, want 201; body %s", r.Status, r.Body)
	}
	var h hookOut
	r.Decode(a.t, &h)
	return h
}

func (a hookAPI) deliveries(key, id string) []deliveryOut {
	a.t.Helper()
	r := a.call("GET", "/v1/platform/webhooks/"+id+"/deliveries?limit=200", key, nil)
	if r.Status != 200 {
		a.t.Fatalf("list deliveries: got %d, want 200; body %s", r.Status, r.Body)
	}
	var page struct {
		Data []deliveryOut `json:"data"`
	}
	r.Decode(a.t, &page)
	return page.Data
}

// walkIn creates a job through the API with key (a location key, or an org
// key naming locationID) and returns its id.
func (a hookAPI) walkIn(key, locationID string) string {
	a.t.Helper()
	body := map[string]any{"vehiclePlate": "WH-" + workshop.NewID("")[20:]}
	if locationID != "" {
		body["locationId"] = locationID
	}
	r := a.call("POST", "/v1/scheduler/jobs", key, body)
	if r.Status != 201 {
		a.t.Fatalf("create job: got %d, want 201; body %s", r.Status, r.Body)
	}
	var j struct {
		ID string `json:"id"`
	}
	r.Decode(a.t, &j)
	return j.ID
}

// waitCtx bounds a test's waits for deliveries. The bound only ends a
// failing test: a delivery normally comes within milliseconds, but a CI
// run on two busy cores once took more than 20 s over one test's many
// waits.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitUntil rechecks cond until it holds, false when ctx ends first: for
// state seen only through reads, which offer nothing else to wait on.
func waitUntil(ctx context.Context, cond func() bool) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// TestWebhooksEndToEnd drives registrations through the API against a real
// server and a local receiver: creation and reads (the secret shown once),
// validation, signatures, rotation, deactivation, location scoping,
// another organisation, redelivery and deletion.
func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 2)
		b := w.org("Beta Cars", workshop.PlanPro, 1)
		loc0, loc1 := a.locationKey(w, 0).Key, a.locationKey(w, 1).Key
		srv := startServer(t, db.URL)
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		api := hookAPI{t: t, url: srv.URL}
		ctx := waitCtx(t)
		// delivered waits for the event of a job on path; a failure shows
		// the registration's deliveries: whether the event was fanned out,
		// and how its attempts went.
		delivered := func(path, hookID, job string) *webhookstest.Hit {
			t.Helper()
			hit, err := rcv.WaitFor(ctx, path, "job.created", job)
			if err != nil {
				t.Fatalf("job %s: %v; deliveries of %s: %+v", job, err, hookID, api.deliveries(a.Key.Key, hookID))
			}
			return hit
		}

		// Registration: the secret on create only.
		main := api.create(a.Key.Key, map[string]any{"url": rcv.URL + "/main", "events": []string{"job.created", "job.updated", "job.created"}})
		raw, ok := strings.CutPrefix(main.SigningSecret, "whsec_")
		if key, err := base64.StdEncoding.DecodeString(raw); !ok || err != nil || len(key) != 32 {
			t.Errorf("signingSecret %q: want whsec_ and the base64 of 32 bytes", main.SigningSecret)
		}
		if !strings.HasPrefix(main.ID, "whk_") || !main.IsActive || main.LocationID != nil || strings.Join(main.Events, ",") != "job.created,job.updated" {
			t.Errorf("created %+v: want whk_ id, active, no location, events job.created,job.updated", main)
		}
		for _, path := range []string{"/v1/platform/webhooks", "/v1/platform/webhooks/" + main.ID} {
			r := api.call("GET", path, a.Key.Key, nil)
			if r.Status != 200 || strings.Contains(string(r.Body), "signingSecret") || strings.Contains(string(r.Body), raw) {
				t.Errorf("GET %s: got %d %s, want 200 without the secret", path, r.Status, r.Body)
			}
		}

		// Validation.
		wantProblem(t, api.call("POST", "/v1/platform/webhooks", a.Key.Key, map[string]any{"url": rcv.URL, "events": []string{"job.created", "job.exploded"}}),
			422, "validation_failed", "events")
		wantProblem(t, api.call("POST", "/v1/platform/webhooks", a.Key.Key, map[string]any{"url": "ftp://example.com/x", "events": []string{"job.created"}}),
			422, "validation_failed", "url")
		wantProblem(t, api.call("POST", "/v1/platform/webhooks", a.Key.Key, map[string]any{"url": "http://user:pw@127.0.0.1/x", "events": []string{"job.created"}}),
			422, "validation_failed", "url")
		wantProblem(t, api.call("PATCH", "/v1/platform/webhooks/"+main.ID, a.Key.Key, map[string]any{"events": []string{"nope"}}),
			422, "validation_failed", "events")

		// Another organisation sees nothing of it.
		for _, c := range []struct{ method, path string }{{"GET", ""}, {"PATCH", ""}, {"DELETE", ""}, {"GET", "/deliveries"}} {
			var body any
			if c.method == "PATCH" {
				body = map[string]any{"isActive": false}
			}
			wantProblem(t, api.call(c.method, "/v1/platform/webhooks/"+main.ID+c.path, b.Key.Key, body), 404, "not_found", "")
		}

		// A delivery, signed both ways.
		job1 := api.walkIn(loc0, "")
		hit := delivered("/main", main.ID, job1)
		if !webhooks.Verify(main.SigningSecret, hit.Body, hit.Header.Get("X-Service-Signature")) {
			t.Errorf("X-Service-Signature %q does not verify", hit.Header.Get("X-Service-Signature"))
		}
		if err := webhooks.VerifyStandard(main.SigningSecret, hit.Body, hit.Header, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("Standard Webhooks signature: %v", err)
		}
		if hit.Attempt != 1 || !strings.HasPrefix(hit.Delivery, "dlv_") || hit.Header.Get("Webhook-Id") != hit.Delivery ||
			hit.Header.Get("X-Service-Event") != "job.created" || !strings.HasPrefix(hit.EventID, "evt_") {
			t.Errorf("headers %v, event id %q: want attempt 1, dlv_ delivery = webhook-id, X-Service-Event job.created, evt_ id", hit.Header, hit.EventID)
		}

		// Rotation: the new secret signs from now on.
		r := api.call("PATCH", "/v1/platform/webhooks/"+main.ID, a.Key.Key, map[string]any{"rotateSecret": true})
		var rotated hookOut
		r.Decode(t, &rotated)
		if r.Status != 200 || rotated.SigningSecret == "" || rotated.SigningSecret == main.SigningSecret {
			t.Fatalf("rotate: got %d %s, want 200 with a new signingSecret", r.Status, r.Body)
		}
		if rotated.PreviousSecretExpiresAt == nil {
			t.Errorf("rotate: previousSecretExpiresAt null, want a day from now")
		} else if until, err := time.Parse(time.RFC3339Nano, *rotated.PreviousSecretExpiresAt); err != nil || time.Until(until) < 23*time.Hour || time.Until(until) > 25*time.Hour {
			t.Errorf("rotate: previousSecretExpiresAt %s, want a day from now", *rotated.PreviousSecretExpiresAt)
		}
		if r := api.call("PATCH", "/v1/platform/webhooks/"+main.ID, a.Key.Key, map[string]any{"events": []string{"job.created"}}); strings.Contains(string(r.Body), "signingSecret") {
			t.Errorf("a PATCH without rotateSecret shows the secret: %s", r.Body)
		}
		job2 := api.walkIn(loc0, "")
		hit = delivered("/main", main.ID, job2)
		// X-Service-Signature: the new secret only; webhook-signature: both
		// (the old one signs beside it for 24 hours).
		if sig := hit.Header.Get("X-Service-Signature"); !webhooks.Verify(rotated.SigningSecret, hit.Body, sig) || webhooks.Verify(main.SigningSecret, hit.Body, sig) {
			t.Errorf("after rotation X-Service-Signature must verify with the new secret only")
		}
		for _, secret := range []string{rotated.SigningSecret, main.SigningSecret} {
			if err := webhooks.VerifyStandard(secret, hit.Body, hit.Header, time.Now(), 5*time.Minute); err != nil {
				t.Errorf("after rotation webhook-signature %q: %v, want it to verify with the new and the old secret", hit.Header.Get("webhook-signature"), err)
			}
		}
		if n := len(strings.Fields(hit.Header.Get("webhook-signature"))); n != 2 {
			t.Errorf("after rotation webhook-signature has %d signatures, want 2", n)
		}

		// Location scoping: a location key's registration gets that
		// location's events only, and only that key's location sees it.
		scoped := api.create(loc0, map[string]any{"url": rcv.URL + "/scoped", "events": []string{"job.created"}})
		if scoped.LocationID == nil || *scoped.LocationID != a.Locations[0].ID {
			t.Errorf("scoped registration locationId %v, want %s", scoped.LocationID, a.Locations[0].ID)
		}
		wantProblem(t, api.call("GET", "/v1/platform/webhooks/"+scoped.ID, loc1, nil), 404, "not_found", "")
		if r := api.call("GET", "/v1/platform/webhooks", loc1, nil); strings.Contains(string(r.Body), scoped.ID) || strings.Contains(string(r.Body), main.ID) {
			t.Errorf("location 1's list shows registrations it does not own: %s", r.Body)
		}
		if r := api.call("GET", "/v1/platform/webhooks/"+scoped.ID, a.Key.Key, nil); r.Status != 200 {
			t.Errorf("the org key reads a location's registration: got %d, want 200", r.Status)
		}
		inactive := api.create(a.Key.Key, map[string]any{"url": rcv.URL + "/inactive", "events": []string{"job.created"}})
		if r := api.call("PATCH", "/v1/platform/webhooks/"+inactive.ID, a.Key.Key, map[string]any{"isActive": false}); r.Status != 200 || !strings.Contains(string(r.Body), `"isActive":false`) {
			t.Fatalf("deactivate: got %d %s", r.Status, r.Body)
		}
		other := api.walkIn(a.Key.Key, a.Locations[1].ID)
		own := api.walkIn(loc0, "")
		for _, id := range []string{other, own} {
			// main gets both: by then both are fanned out to every registration.
			delivered("/main", main.ID, id)
		}
		delivered("/scoped", scoped.ID, own)
		for _, h := range rcv.Hits("/scoped") {
			if h.DataID == other {
				t.Errorf("the location-0 registration got location 1's job %s", other)
			}
		}
		if ds := api.deliveries(a.Key.Key, scoped.ID); len(ds) != 1 {
			t.Errorf("scoped registration: got %d deliveries, want 1 (location 0's job): %+v", len(ds), ds)
		}
		if ds := api.deliveries(a.Key.Key, inactive.ID); len(ds) != 0 {
			t.Errorf("inactive registration: got %d deliveries, want 0: %+v", len(ds), ds)
		}

		// Redelivery: an endpoint failing until exhausted, then fixed.
		failing := make(chan struct{})
		rcv.Set("/flaky", func(*webhookstest.Hit) webhookstest.Answer {
			select {
			case <-failing:
				return webhookstest.Answer{Status: 204}
			default:
				return webhookstest.Answer{Status: 503}
			}
		})
		flaky := api.create(a.Key.Key, map[string]any{"url": rcv.URL + "/flaky", "events": []string{"job.created"}})
		job3 := api.walkIn(loc0, "")
		// The test server retries once after 1s: 2 attempts, then exhausted.
		if _, err := rcv.Wait(ctx, "/flaky", func(hs []*webhookstest.Hit) bool { return len(hs) >= 2 }); err != nil {
			t.Fatal(err)
		}
		var d deliveryOut
		if !waitUntil(ctx, func() bool {
			ds := api.deliveries(a.Key.Key, flaky.ID)
			if len(ds) != 1 {
				t.Fatalf("flaky: got %d deliveries, want 1", len(ds))
			}
			d = ds[0]
			return d.Status == "exhausted"
		}) {
			t.Fatalf("the delivery never got exhausted: %+v", d)
		}
		if d.Attempts != 2 || d.LastStatusCode == nil || *d.LastStatusCode != 503 || d.LastError == nil || d.NextAttemptAt != nil {
			t.Errorf("exhausted delivery %+v: want 2 attempts, last status 503, an error, no next attempt", d)
		}
		wantProblem(t, api.call("POST", "/v1/platform/webhooks/"+flaky.ID+"/deliveries/"+d.ID+"/redeliver", b.Key.Key, nil), 404, "not_found", "")
		wantProblem(t, api.call("POST", "/v1/platform/webhooks/"+flaky.ID+"/deliveries/dlv_nope/redeliver", a.Key.Key, nil), 404, "not_found", "")
		close(failing)
		r = api.call("POST", "/v1/platform/webhooks/"+flaky.ID+"/deliveries/"+d.ID+"/redeliver", a.Key.Key, nil)
		var re deliveryOut
		r.Decode(t, &re)
		if r.Status != 202 || re.ID != d.ID || re.Status != "pending" || re.Attempts != 2 || re.NextAttemptAt == nil {
			t.Errorf("redeliver: got %d %s, want 202 with the delivery pending, 2 attempts, scheduled", r.Status, r.Body)
		}
		hits, err := rcv.Wait(ctx, "/flaky", func(hs []*webhookstest.Hit) bool { return len(hs) >= 3 })
		if err != nil {
			t.Fatal(err)
		}
		if h := hits[2]; h.Attempt != 3 || h.Delivery != d.ID || h.DataID != job3 {
			t.Errorf("redelivery: attempt %d of %s for %s, want attempt 3 of %s for %s", h.Attempt, h.Delivery, h.DataID, d.ID, job3)
		}
		waitUntil(ctx, func() bool {
			d = api.deliveries(a.Key.Key, flaky.ID)[0]
			return d.Status == "succeeded"
		})
		if d.Status != "succeeded" || d.Attempts != 3 || d.LastStatusCode == nil || *d.LastStatusCode != 204 || d.LastError != nil {
			t.Errorf("after the redelivery: %+v, want succeeded after 3 attempts, last status 204, no error", d)
		}

		// Deletion: 204, then gone with its history; no further delivery.
		if r := api.call("DELETE", "/v1/platform/webhooks/"+flaky.ID, a.Key.Key, nil); r.Status != 204 {
			t.Fatalf("delete: got %d %s, want 204", r.Status, r.Body)
		}
		wantProblem(t, api.call("GET", "/v1/platform/webhooks/"+flaky.ID, a.Key.Key, nil), 404, "not_found", "")
		wantProblem(t, api.call("GET", "/v1/platform/webhooks/"+flaky.ID+"/deliveries", a.Key.Key, nil), 404, "not_found", "")
		wantProblem(t, api.call("DELETE", "/v1/platform/webhooks/"+flaky.ID, a.Key.Key, nil), 404, "not_found", "")
		before := rcv.Received("/flaky")
		job4 := api.walkIn(loc0, "")
		delivered("/main", main.ID, job4)
		if got := rcv.Received("/flaky"); got != before {
			t.Errorf("the deleted registration got %d more requests, want none", got-before)
		}
	})
}
