package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	apidoc "github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
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

// The delivery history narrows by status and by event, alone or together;
// a state or an event that is none is 400 naming the parameter.
func TestDeliveriesFilter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Filter Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		rcv.Set("/ok", func(*webhookstest.Hit) webhookstest.Answer { return webhookstest.Answer{Status: 200, Body: "ok"} })
		call := func(path string) *apitest.Response {
			return apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: path, Key: a.Key.Key})
		}
		var hook struct{ ID string }
		apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/platform/webhooks", Key: a.Key.Key,
			Body: map[string]any{"url": rcv.URL + "/ok", "events": []string{"job.created", "step.created"}}}).Decode(t, &hook)
		var job struct{ ID string }
		apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: a.Key.Key,
			Body: map[string]any{"locationId": a.Locations[0].ID}}).Decode(t, &job)
		apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs/" + job.ID + "/steps", Key: a.Key.Key,
			Body: map[string]any{"label": "Brakes", "estimatedDuration": 30}})
		base := "/v1/platform/webhooks/" + hook.ID + "/deliveries"
		events := func(query string) []string {
			var page struct {
				Data []struct{ Event, Status string }
			}
			call(base+query).Decode(t, &page)
			var out []string
			for _, d := range page.Data {
				out = append(out, d.Event+":"+d.Status)
			}
			return out
		}
		for deadline := time.Now().Add(30 * time.Second); len(events("?status=succeeded")) < 2 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond) // polling a condition: the dispatcher delivers
		}
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"", []string{"job.created:succeeded", "step.created:succeeded"}},
			{"?status=succeeded", []string{"job.created:succeeded", "step.created:succeeded"}},
			{"?event=step.created", []string{"step.created:succeeded"}},
			{"?status=succeeded&event=job.created", []string{"job.created:succeeded"}},
			{"?status=failed", nil},
			{"?status=pending&event=job.created", nil},
		} {
			if got := events(tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
			}
		}
		for _, param := range []string{"status=broken", "event=job.exploded"} {
			r, err := apitest.Unchecked(srv.URL, apitest.Request{Method: "GET", Path: base + "?" + param, Key: a.Key.Key})
			if err != nil {
				t.Fatal(err)
			}
			name, _, _ := strings.Cut(param, "=")
			wantProblem(t, r, 400, "invalid_parameter", name)
		}
	})
}
