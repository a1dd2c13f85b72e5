package main

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestOperatorSignals: /metrics says which build runs, how the database
// pools, the plan cache and the promise watch do, request logs name the client and its user agent, and
// a clean stop ends with a "stopped" line.
func TestOperatorSignals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		o := w.org("Signal Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL, apitest.WithShutdownGrace(5*time.Second))
		r := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: o.Key.Key,
			Header: http.Header{"User-Agent": {"signal-check/1.0"}}})
		if r.Status != http.StatusOK {
			t.Fatalf("GET /v1/platform/me: %d %s", r.Status, r.Body)
		}
		metrics := string(apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/metrics"}).Body)
		pool := `pool="pool"`
		if strings.HasPrefix(db.URL, "sqlite") {
			pool = `pool="reader"`
		}
		for _, want := range []string{
			`workshop_build_info{commit="`, `goversion="` + runtime.Version() + `",version="`,
			"workshop_db_pool_open_connections{" + pool + "}", "workshop_db_pool_in_use_connections{" + pool + "}",
			"workshop_db_pool_idle_connections{" + pool + "}", "workshop_db_pool_wait_count_total{" + pool + "}",
			"workshop_db_pool_wait_duration_seconds_total{" + pool + "}",
			"workshop_plan_cache_hits_total ", "workshop_plan_cache_misses_total ", "workshop_plan_cache_bytes ",
			"workshop_promise_watch_queue_length ", "workshop_promise_watch_oldest_due_seconds ",
			"workshop_promise_watch_look_seconds_bucket{", "workshop_promise_watch_change_to_look_seconds_bucket{",
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics: no %s in\n%.3000s", want, grepLines(metrics, "workshop_"))
			}
		}
		if err := srv.Stop(); err != nil {
			t.Fatalf("stop: %v", err)
		}
		lines, err := srv.Log.Lines()
		if err != nil {
			t.Fatal(err)
		}
		var request, last map[string]any
		for _, l := range lines {
			if l["msg"] == "request" && l["request_id"] == r.Header.Get("X-Request-Id") {
				request = l
			}
			last = l
		}
		if request == nil || request["user_agent"] != "signal-check/1.0" || !strings.HasPrefix(request["client_addr"].(string), "127.0.0.1:") {
			t.Errorf("the request's log line: got %v, want user_agent signal-check/1.0 and client_addr 127.0.0.1:PORT", request)
		}
		if last["msg"] != "stopped" {
			t.Errorf("the last log line: got %v, want stopped", last)
		}
	})
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestShutdownGraceFlag: --shutdown-grace, WORKSHOP_SHUTDOWN_GRACE, 20s.
func TestShutdownGraceFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{nil, nil, 20 * time.Second, ""},
		{nil, map[string]string{"WORKSHOP_SHUTDOWN_GRACE": "45s"}, 45 * time.Second, ""},
		{[]string{"--shutdown-grace", "2m"}, map[string]string{"WORKSHOP_SHUTDOWN_GRACE": "45s"}, 2 * time.Minute, ""},
		{[]string{"--shutdown-grace", "0s"}, nil, 0, `--shutdown-grace: "0s" is not a positive duration`},
		{[]string{"--shutdown-grace", "soon"}, nil, 0, `--shutdown-grace: "soon" is not a positive duration`},
	} {
		c, err := parseServe(tc.args, envOf(tc.env))
		if got := errText(err); got != tc.wantErr || (err == nil && c.shutdownGrace != tc.want) {
			t.Errorf("%v %v: got %s %q, want %s %q", tc.args, tc.env, c.shutdownGrace, got, tc.want, tc.wantErr)
		}
	}
}
