//go:build timing

package loadgen

// Tests of figures the wall clock decides (a rate kept, a latency seen),
// which a busy machine can miss without a fault: run them on a quiet one
// with go test -tags timing ./internal/loadgen.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestOpenLoopRate(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		ControlHandler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	res, err := OpenLoop{Rate: 200, Duration: time.Second, Warmup: 100 * time.Millisecond}.Run(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests < 150 || res.Requests > 250 {
		t.Errorf("Requests = %d, want about 200", res.Requests)
	}
	// Each of the window's 200 scheduled requests is answered or missed. A
	// busy machine may wake the scheduler after the window for the last few,
	// so how many are missed is timing, not asserted.
	if res.Errors != 0 || res.Statuses[200] != res.Requests || res.Requests+res.Missed != 200 {
		t.Errorf("got %+v, want only 200s, answered + missed = 200", res)
	}
	if res.Throughput < 150 || res.Throughput > 250 {
		t.Errorf("Throughput = %v, want about 200/s", res.Throughput)
	}
	// The warmup's ~20 requests are sent but not recorded.
	if h := hits.Load(); h < res.Requests+10 {
		t.Errorf("server saw %d requests, recorded %d: warmup not sent?", h, res.Requests)
	}
}

func TestOpenLoopLatencyFromSchedule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(w, "slow")
	}))
	defer srv.Close()
	// Capacity is 2 in flight / 50ms = 40 req/s, far below the rate: requests
	// queue behind MaxInFlight and their wait must show in the latency.
	res, err := OpenLoop{Rate: 200, Duration: time.Second, MaxInFlight: 2}.Run(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if res.P99 < 50*time.Millisecond {
		t.Errorf("p99 = %v, want >= 50ms", res.P99)
	}
	if res.Requests == 0 || res.Requests > 60 {
		t.Errorf("Requests = %d, want at most about 40 (the server's capacity)", res.Requests)
	}
	if res.Missed < 100 {
		t.Errorf("Missed = %d, want most of the 200 scheduled requests", res.Missed)
	}
}
