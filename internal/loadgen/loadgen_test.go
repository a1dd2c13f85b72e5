package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// get builds GET requests for url; i is ignored.
func get(url string) Request {
	return func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, url, nil) }
}

func TestClosedLoopCountsAndStatuses(t *testing.T) {
	t.Parallel()
	var hits, newConns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/bad" {
			http.Error(w, "boom from server", http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			newConns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	// Even requests succeed, odd ones get a 500.
	req := func(i int64) (*http.Request, error) {
		path := "/ok"
		if i%2 == 1 {
			path = "/bad"
		}
		return http.NewRequest(http.MethodGet, srv.URL+path, nil)
	}
	const conns = 4
	res, err := ClosedLoop{Connections: conns, Duration: 400 * time.Millisecond, Warmup: 100 * time.Millisecond}.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ok, bad := res.Statuses[200], res.Statuses[500]
	if len(res.Statuses) != 2 || ok == 0 || bad == 0 {
		t.Fatalf("statuses = %v, want both 200 and 500", res.Statuses)
	}
	if res.Requests != ok+bad {
		t.Errorf("Requests = %d, want %d", res.Requests, ok+bad)
	}
	if res.Errors != bad {
		t.Errorf("Errors = %d, want the %d non-2xx responses", res.Errors, bad)
	}
	// Consecutive indices alternate, so the two counts are close.
	if d := ok - bad; d > res.Requests/4 || -d > res.Requests/4 {
		t.Errorf("200: %d vs 500: %d, want roughly equal", ok, bad)
	}
	if res.Duration != 400*time.Millisecond {
		t.Errorf("Duration = %v, want the measured window 400ms", res.Duration)
	}
	if want := float64(ok) / res.Duration.Seconds(); res.Throughput != want {
		t.Errorf("Throughput = %v, want accepted/s = %v", res.Throughput, want)
	}
	if h := hits.Load(); h < res.Requests {
		t.Errorf("server saw %d requests, fewer than the %d recorded", h, res.Requests)
	}
	if res.P50 <= 0 || res.P50 > res.P90 || res.P90 > res.P99 || res.P99 > res.Max {
		t.Errorf("percentiles not ordered: p50 %v p90 %v p99 %v max %v", res.P50, res.P90, res.P99, res.Max)
	}
	if !strings.Contains(res.FirstError, "status 500") || !strings.Contains(res.FirstError, "boom from server") {
		t.Errorf("FirstError = %q, want the status and body excerpt", res.FirstError)
	}
	// Bodies are read and closed, so connections are reused rather than one
	// dialled per request (a few extra dials can race with returning a
	// connection to the idle pool, hence the slack).
	if n := newConns.Load(); n > 4*conns {
		t.Errorf("%d connections opened for %d requests with %d workers: keep-alive not working", n, hits.Load(), conns)
	}
}

func TestClosedLoopAccept(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	res, err := ClosedLoop{
		Connections: 2, Duration: 200 * time.Millisecond,
		Accept: func(s int) bool { return s == http.StatusNotFound },
	}.Run(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != 0 || res.Statuses[404] != res.Requests || res.Throughput <= 0 {
		t.Errorf("got %+v, want only accepted 404s", res)
	}
}

func TestClosedLoopTransportErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more: every request is a transport error
	res, err := ClosedLoop{Connections: 2, Duration: 100 * time.Millisecond}.Run(context.Background(), get(url))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 0 || res.Errors == 0 || res.Throughput != 0 || res.FirstError == "" {
		t.Errorf("got %+v, want only errors", res)
	}
}

func TestClosedLoopCancel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ControlHandler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	res, err := ClosedLoop{Connections: 2, Duration: 30 * time.Second}.Run(ctx, get(srv.URL))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's error", err)
	}
	if el := time.Since(begin); el > 2*time.Second {
		t.Errorf("Run took %v after cancellation", el)
	}
	if res.Requests == 0 || res.Errors != 0 || res.Duration >= time.Second {
		t.Errorf("partial result %+v, want some requests, no errors, a short Duration", res)
	}
}

func TestRequestBuildErrorAborts(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ControlHandler())
	defer srv.Close()
	boom := errors.New("boom")
	req := func(i int64) (*http.Request, error) {
		if i == 10 {
			return nil, boom
		}
		return http.NewRequest(http.MethodGet, srv.URL, nil)
	}
	begin := time.Now()
	_, err := OpenLoop{Rate: 1000, Duration: 10 * time.Second}.Run(context.Background(), req)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the build error", err)
	}
	if el := time.Since(begin); el > 2*time.Second {
		t.Errorf("Run took %v after the build error", el)
	}
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	r := get("http://127.0.0.1:1/")
	ctx := context.Background()
	if _, err := (ClosedLoop{Duration: time.Second}).Run(ctx, r); err == nil {
		t.Error("ClosedLoop without Connections: no error")
	}
	if _, err := (ClosedLoop{Connections: 1}).Run(ctx, r); err == nil {
		t.Error("ClosedLoop without Duration: no error")
	}
	if _, err := (OpenLoop{Duration: time.Second}).Run(ctx, r); err == nil {
		t.Error("OpenLoop without Rate: no error")
	}
	if _, err := (OpenLoop{Rate: 10, Duration: time.Second}).Run(ctx, nil); err == nil {
		t.Error("OpenLoop with nil Request: no error")
	}
}

func TestOpenLoopCancel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ControlHandler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	res, err := OpenLoop{Rate: 100, Duration: 30 * time.Second}.Run(ctx, get(srv.URL))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's error", err)
	}
	if el := time.Since(begin); el > 2*time.Second {
		t.Errorf("Run took %v after cancellation", el)
	}
	if res.Requests < 5 || res.Requests > 40 || res.Errors != 0 {
		t.Errorf("partial result %+v, want about 20 requests and no errors", res)
	}
}

func TestControlHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ControlHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if len(body) != 600 || resp.ContentLength != 600 {
		t.Errorf("body is %d bytes (Content-Length %d), want 600", len(body), resp.ContentLength)
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("body is not valid JSON: %v", err)
	}
}

func TestRounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vals          []float64
		med, min, max float64
	}{
		{[]float64{7}, 7, 7, 7},
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{5, 1, 4, 2, 3}, 3, 1, 5},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
		{[]float64{10, 20}, 15, 10, 20},
	} {
		var calls []int
		med, lo, hi, err := Rounds(len(tc.vals), func(round int) (float64, error) {
			calls = append(calls, round)
			return tc.vals[round], nil
		})
		if err != nil || med != tc.med || lo != tc.min || hi != tc.max {
			t.Errorf("Rounds(%v) = %v, %v, %v, %v; want %v, %v, %v", tc.vals, med, lo, hi, err, tc.med, tc.min, tc.max)
		}
		for i, r := range calls {
			if r != i || len(calls) != len(tc.vals) {
				t.Errorf("rounds called as %v", calls)
				break
			}
		}
	}
	boom := errors.New("boom")
	if _, _, _, err := Rounds(3, func(r int) (float64, error) {
		if r == 1 {
			return 0, boom
		}
		return 1, nil
	}); !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if _, _, _, err := Rounds(0, func(int) (float64, error) { return 0, nil }); err == nil {
		t.Error("Rounds(0): no error")
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	s := make([]time.Duration, 100)
	for i := range s {
		s[i] = time.Duration(i + 1)
	}
	for p, want := range map[float64]time.Duration{0.5: 50, 0.9: 90, 0.99: 99, 1: 100} {
		if got := percentile(s, p); got != want {
			t.Errorf("percentile(1..100, %v) = %v, want %v", p, got, want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("empty sample: %v", got)
	}
}

func BenchmarkControlHandler(b *testing.B) {
	h := ControlHandler()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		w.Body.Reset()
		h.ServeHTTP(w, req)
	}
}
