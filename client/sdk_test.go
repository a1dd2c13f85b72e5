package client_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/client"
)

// twoPages answers every GET with the first page of a list (one row and a
// cursor) or, given that cursor, the last one (one row, no cursor), and
// records the paths asked for.
type twoPages struct {
	mu    sync.Mutex
	paths []string
}

func (p *twoPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path+"?cursor="+r.URL.Query().Get("cursor"))
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("cursor") == "" {
		fmt.Fprint(w, `{"data":[{"id":"row_1"}],"nextCursor":"c2"}`)
		return
	}
	fmt.Fprint(w, `{"data":[{"id":"row_2"}],"nextCursor":null}`)
}

// count reads a sequence to its end: its rows, or the first error.
func count[T any](seq iter.Seq2[T, error]) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestListIteratorsFollowEveryCursor walks each list of the SDK over two
// pages: every iterator asks for its own path and follows nextCursor.
func TestListIteratorsFollowEveryCursor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		path string
		walk func(api *client.API) (int, error)
	}{
		{"/v1/scheduler/jobs", func(a *client.API) (int, error) { return count(a.Jobs(ctx, nil)) }},
		{"/v1/scheduler/technicians", func(a *client.API) (int, error) { return count(a.Technicians(ctx, nil)) }},
		{"/v1/scheduler/bays", func(a *client.API) (int, error) { return count(a.Bays(ctx, nil)) }},
		{"/v1/scheduler/catalog", func(a *client.API) (int, error) { return count(a.Catalog(ctx, nil)) }},
		{"/v1/scheduler/attendance", func(a *client.API) (int, error) { return count(a.Attendance(ctx, nil)) }},
		{"/v1/scheduler/absences", func(a *client.API) (int, error) { return count(a.Absences(ctx, nil)) }},
		{"/v1/scheduler/maintenance-windows", func(a *client.API) (int, error) { return count(a.MaintenanceWindows(ctx, nil)) }},
		{"/v1/scheduler/bays/bay_1/maintenance-windows", func(a *client.API) (int, error) {
			return count(a.BayMaintenanceWindows(ctx, "bay_1", nil))
		}},
		{"/v1/platform/integrations", func(a *client.API) (int, error) { return count(a.Integrations(ctx, nil)) }},
		{"/v1/platform/webhooks", func(a *client.API) (int, error) { return count(a.Webhooks(ctx, nil)) }},
		{"/v1/platform/events", func(a *client.API) (int, error) { return count(a.Events(ctx, nil)) }},
		{"/v1/platform/webhooks/wh_1/deliveries", func(a *client.API) (int, error) {
			return count(a.WebhookDeliveries(ctx, "wh_1", nil))
		}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			pages := &twoPages{}
			srv := httptest.NewServer(pages)
			defer srv.Close()
			api, err := client.New(client.BaseURL(srv.URL), client.APIKey("wsk_test"))
			if err != nil {
				t.Fatal(err)
			}
			n, err := tc.walk(api)
			if err != nil || n != 2 {
				t.Errorf("got %d rows, %v; want 2 rows", n, err)
			}
			want := []string{tc.path + "?cursor=", tc.path + "?cursor=c2"}
			if fmt.Sprint(pages.paths) != fmt.Sprint(want) {
				t.Errorf("asked for %v, want %v", pages.paths, want)
			}
		})
	}
}

// countingDoer sends through http.DefaultClient and counts the requests.
type countingDoer struct {
	mu sync.Mutex
	n  int
}

func (d *countingDoer) Do(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
	return http.DefaultClient.Do(r)
}

// TestRetryOptions checks that HTTPClient sends every attempt and that
// MaxAttempts and RetryBackoff bound the retries of a 503.
func TestRetryOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		opts     []client.Option
		wantSent int
	}{
		{"retries off", []client.Option{client.MaxAttempts(1)}, 1},
		{"three attempts with a short backoff", []client.Option{client.MaxAttempts(3), client.RetryBackoff(time.Millisecond, 2*time.Millisecond)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, `{"type":"about:blank","title":"Unavailable","status":503,"code":"unavailable","detail":"Restarting.","requestId":"req_1"}`)
			}))
			defer srv.Close()
			doer := &countingDoer{}
			api, err := client.New(append([]client.Option{client.BaseURL(srv.URL), client.APIKey("wsk_test"), client.HTTPClient(doer)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = api.GetMeWithResponse(context.Background())
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("got %v, want the 503 as an *APIError", err)
			}
			if doer.n != tc.wantSent {
				t.Errorf("sent %d times, want %d", doer.n, tc.wantSent)
			}
		})
	}
}
