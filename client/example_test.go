package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/workshop-platform/workshop/client"
)

// fakeWorkshop answers as a workshop server would, for the examples: two
// pages of jobs, a 422 for a job create without a location, a 404, and a
// 503 (with Retry-After) on the first call to /v1/platform/me.
func fakeWorkshop() *httptest.Server {
	var meCalls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/scheduler/jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("cursor") == "" {
			fmt.Fprint(w, `{"data":[{"id":"job_1","jobNumber":"RO-2026-0001"},{"id":"job_2","jobNumber":"RO-2026-0002"}],"nextCursor":"c2"}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"job_3","jobNumber":"RO-2026-0003"}],"nextCursor":null}`)
	})
	problem := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("POST /v1/scheduler/jobs", func(w http.ResponseWriter, r *http.Request) {
		problem(w, 422, `{"type":"about:blank","title":"Validation failed","status":422,"code":"validation_failed",
			"detail":"locationId is required with an organisation-scoped key.","field":"locationId","requestId":"req_1"}`)
	})
	mux.HandleFunc("GET /v1/scheduler/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		problem(w, 404, `{"type":"about:blank","title":"Not found","status":404,"code":"not_found","detail":"No such job.","requestId":"req_2"}`)
	})
	mux.HandleFunc("GET /v1/platform/me", func(w http.ResponseWriter, r *http.Request) {
		if meCalls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			problem(w, 503, `{"type":"about:blank","title":"Unavailable","status":503,"code":"unavailable","detail":"Restarting.","requestId":"req_3"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"orgId":"org_1","keyId":"key_1","planTier":"pro","scopes":[],"userAgent":%q}`, r.UserAgent())
	})
	return httptest.NewServer(mux)
}

// List every job, page after page: the iterator follows nextCursor.
func ExampleAPI_Jobs() {
	srv := fakeWorkshop()
	defer srv.Close()
	api, err := client.New(client.BaseURL(srv.URL), client.APIKey("wsk_example"))
	if err != nil {
		panic(err)
	}
	for job, err := range api.Jobs(context.Background(), &client.ListJobsParams{}) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(job.Id, job.JobNumber)
	}
	// Output:
	// job_1 RO-2026-0001
	// job_2 RO-2026-0002
	// job_3 RO-2026-0003
}

// Every answer of 400 or more is an *APIError: its status, code, field and
// request id, found with errors.As.
func ExampleAPIError() {
	srv := fakeWorkshop()
	defer srv.Close()
	api, err := client.New(client.BaseURL(srv.URL), client.APIKey("wsk_example"))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, err = api.CreateJobWithResponse(ctx, nil, client.JobCreate{})
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Field, apiErr.RequestID)
	}
	_, err = api.GetJobWithResponse(ctx, "job_nope", nil)
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		fmt.Println("not found:", apiErr.Detail)
	}
	// Output:
	// 422 validation_failed locationId req_1
	// not found: No such job.
}

// A 429 or 503 is retried after the server's Retry-After (or a backoff);
// a POST keeps one generated Idempotency-Key across its attempts.
func ExampleNew() {
	srv := fakeWorkshop()
	defer srv.Close()
	api, err := client.New(
		client.BaseURL(srv.URL),
		client.APIKey("wsk_example"),
		client.HTTPClient(&http.Client{Timeout: 10 * time.Second}),
		client.UserAgent("example-dms/1.0"),
		client.MaxAttempts(3),
	)
	if err != nil {
		panic(err)
	}
	me, err := api.GetMeWithResponse(context.Background()) // answered 503 once, then 200
	if err != nil {
		panic(err)
	}
	fmt.Println(me.StatusCode(), me.JSON200.OrgId)
	// Output:
	// 200 org_1
}
