package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/workshop-platform/workshop/client"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The Go SDK against the real server: its iterator walks every page, a 422
// and a 404 are *APIError, and a server that answers 503 once (a proxy in
// front of it restarting) is survived, the retried POST made once.
func TestGoSDK(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		target, _ := url.Parse(srv.URL)
		var unavailable atomic.Int32
		unavailable.Store(1) // the first request through the proxy is 503
		proxy := httputil.NewSingleHostReverseProxy(target)
		front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if unavailable.Add(-1) >= 0 {
				rw.Header().Set("Retry-After", "0")
				http.Error(rw, "restarting", http.StatusServiceUnavailable)
				return
			}
			proxy.ServeHTTP(rw, r)
		}))
		defer front.Close()
		frontURL := front.URL

		api, err := client.New(client.BaseURL(frontURL), client.APIKey(a.Key.Key), client.UserAgent("sdk-test/1"))
		if err != nil {
			t.Fatal(err)
		}
		loc := a.Locations[0].ID
		made := map[string]bool{}
		for i := range 5 {
			plate := "B-SDK " + string(rune('1'+i))
			r, err := api.CreateJobWithResponse(t.Context(), nil, client.JobCreate{LocationId: &loc, VehiclePlate: &plate})
			if err != nil || r.JSON201 == nil {
				t.Fatalf("create %d: %v", i, err)
			}
			made[r.JSON201.Id] = true
		}
		limit := 2
		seen := 0
		for job, err := range api.Jobs(t.Context(), &client.ListJobsParams{Limit: &limit}) {
			if err != nil {
				t.Fatal(err)
			}
			if !made[job.Id] {
				t.Errorf("listed %s, not made here", job.Id)
			}
			seen++
		}
		if seen != len(made) {
			t.Errorf("the iterator yielded %d jobs over pages of %d, want %d (the first create, retried after the 503, made once)", seen, limit, len(made))
		}

		for _, tc := range []struct {
			name   string
			call   func() error
			status int
			code   string
		}{
			{"a 422", func() error {
				_, err := api.CreateJobWithResponse(t.Context(), nil, client.JobCreate{})
				return err
			}, 422, "validation_failed"},
			{"a 404", func() error {
				_, err := api.GetJobWithResponse(t.Context(), "job_nope", nil)
				return err
			}, 404, "not_found"},
		} {
			var apiErr *client.APIError
			if err := tc.call(); !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Code != tc.code || apiErr.RequestID == "" {
				t.Errorf("%s: got %v, want an *APIError %d %s with its request id", tc.name, err, tc.status, tc.code)
			}
		}
	})
}
