package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	apidoc "github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

type attemptOut struct {
	Attempt         int     `json:"attempt"`
	AttemptedAt     string  `json:"attemptedAt"`
	DurationMs      int     `json:"durationMs"`
	StatusCode      *int    `json:"statusCode"`
	Error           *string `json:"error"`
	ResponseExcerpt string  `json:"responseExcerpt"`
}

type eventOut struct {
	ID         string          `json:"id"`
	Event      string          `json:"event"`
	OccurredAt string          `json:"occurredAt"`
	Data       json.RawMessage `json:"data"`
}

// TestWebhookHistoryEndToEnd: a failed attempt and its redelivery are
// both in the delivery's attempts, with status and answer; the event is
// listed by GET /v1/platform/events exactly as it was delivered.
func TestWebhookHistoryEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("History Motors", workshop.PlanPro, 2)
		loc1 := a.locationKey(w, 1).Key
		srv := startServer(t, db.URL)
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		rcv.Set("/hist", func(h *webhookstest.Hit) webhookstest.Answer {
			if h.N == 1 {
				return webhookstest.Answer{Status: 503, Body: "try later"}
			}
			return webhookstest.Answer{Status: 200, Body: "ok"}
		})
		api := hookAPI{t: t, url: srv.URL}
		ctx := waitCtx(t)
		hook := api.create(a.Key.Key, map[string]any{"url": rcv.URL + "/hist", "events": []string{"job.created"}})
		r := api.call("GET", "/v1/platform/webhooks/"+hook.ID, a.Key.Key, nil)
		var fields map[string]any
		r.Decode(t, &fields)
		for _, f := range []string{"previousSecretExpiresAt", "disabledAt", "disabledReason"} {
			if v, ok := fields[f]; !ok || v != nil {
				t.Errorf("a new registration's %s = %v (present %v), want null", f, v, ok)
			}
		}

		jobID := api.walkIn(a.Key.Key, a.Locations[0].ID)
		hit, err := rcv.WaitFor(ctx, "/hist", "job.created", jobID)
		if err != nil {
			t.Fatal(err)
		}
		var d deliveryOut
		if !waitUntil(ctx, func() bool {
			ds := api.deliveries(a.Key.Key, hook.ID)
			if len(ds) == 1 {
				d = ds[0]
			}
			return d.Status == "failed"
		}) {
			t.Fatalf("delivery %+v: want failed after the 503", d)
		}
		if r := api.call("POST", "/v1/platform/webhooks/"+hook.ID+"/deliveries/"+d.ID+"/redeliver", a.Key.Key, nil); r.Status != 202 {
			t.Fatalf("redeliver: got %d %s, want 202", r.Status, r.Body)
		}
		var attempts []attemptOut
		if !waitUntil(ctx, func() bool {
			r := api.call("GET", "/v1/platform/webhooks/"+hook.ID+"/deliveries/"+d.ID+"/attempts", a.Key.Key, nil)
			var page struct {
				Data []attemptOut `json:"data"`
			}
			r.Decode(t, &page)
			attempts = page.Data
			return len(attempts) == 2
		}) {
			t.Fatalf("attempts %+v: want 2", attempts)
		}
		tests := []struct {
			got            attemptOut
			number, status int
			excerpt        string
			failed         bool
		}{
			{attempts[0], 1, 503, "try later", true},
			{attempts[1], 2, 200, "ok", false},
		}
		for _, tt := range tests {
			g := tt.got
			if _, err := time.Parse(time.RFC3339Nano, g.AttemptedAt); err != nil || g.Attempt != tt.number || g.StatusCode == nil ||
				*g.StatusCode != tt.status || g.ResponseExcerpt != tt.excerpt || (g.Error != nil) != tt.failed || g.DurationMs < 0 {
				t.Errorf("attempt %+v: want number %d, status %d, excerpt %q, an error %v", g, tt.number, tt.status, tt.excerpt, tt.failed)
			}
		}
		wantProblem(t, api.call("GET", "/v1/platform/webhooks/"+hook.ID+"/deliveries/dlv_nope/attempts", a.Key.Key, nil), 404, "not_found", "")

		// The event, as delivered.
		var delivered eventOut
		if err := json.Unmarshal(hit.Body, &delivered); err != nil {
			t.Fatal(err)
		}
		events := func(key, query string) ([]eventOut, *string) {
			t.Helper()
			r := api.call("GET", "/v1/platform/events"+query, key, nil)
			if r.Status != 200 {
				t.Fatalf("GET /v1/platform/events%s: got %d %s, want 200", query, r.Status, r.Body)
			}
			var page struct {
				Data       []eventOut `json:"data"`
				NextCursor *string    `json:"nextCursor"`
			}
			r.Decode(t, &page)
			return page.Data, page.NextCursor
		}
		list, _ := events(a.Key.Key, "")
		var found *eventOut
		for i, e := range list {
			if e.ID == delivered.ID {
				found = &list[i]
			}
			if i > 0 && e.OccurredAt > list[i-1].OccurredAt {
				t.Errorf("events not newest first: %s after %s", e.OccurredAt, list[i-1].OccurredAt)
			}
		}
		// The body matches the event's documented schema.
		doc, err := openapi3.NewLoader().LoadFromData(apidoc.OpenAPI)
		if err != nil {
			t.Fatal(err)
		}
		var parsed any
		_ = json.Unmarshal(hit.Body, &parsed)
		if err := doc.Components.Schemas["JobCreatedEvent"].Value.VisitJSON(parsed); err != nil {
			t.Errorf("the job.created body does not match JobCreatedEvent: %v", err)
		}
		if found == nil || found.Event != delivered.Event || found.OccurredAt != delivered.OccurredAt || !bytes.Equal(found.Data, delivered.Data) {
			t.Fatalf("listed %+v, want the delivered event %+v byte for byte", found, delivered)
		}
		filters := []struct {
			name, key, query string
			want             bool
		}{
			{"its name", a.Key.Key, "?event=job.created", true},
			{"another name", a.Key.Key, "?event=job.updated", false},
			{"after it", a.Key.Key, "?occurredAfter=" + url.QueryEscape(time.Now().Add(time.Minute).Format(time.RFC3339)), false},
			{"before it", a.Key.Key, "?occurredAfter=" + url.QueryEscape(time.Now().Add(-time.Hour).Format(time.RFC3339)), true},
			{"another location's key", loc1, "", false},
		}
		for _, f := range filters {
			list, _ := events(f.key, f.query)
			got := false
			for _, e := range list {
				got = got || e.ID == delivered.ID
			}
			if got != f.want {
				t.Errorf("%s: listed %v, want %v", f.name, got, f.want)
			}
		}
		// Pages of one, with the cursor, reach the same events.
		var paged []string
		for cursor := ""; ; {
			q := "?limit=1"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page, next := events(a.Key.Key, q)
			for _, e := range page {
				paged = append(paged, e.ID)
			}
			if next == nil {
				break
			}
			cursor = *next
		}
		if len(paged) != len(list) {
			t.Errorf("paged %d events, want %d", len(paged), len(list))
		}
		wantProblem(t, api.call("GET", "/v1/platform/events?event=job.exploded", a.Key.Key, nil), 400, "invalid_parameter", "event")
	})
}
