package httpapi

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// syncBuffer is a log both the server and the test touch.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// A request whose client goes away is logged at info as abandoned and
// counted apart, not as a 500, and its handler's late error answer makes
// no "superfluous WriteHeader".
func TestAbandonedRequestIsNoError(t *testing.T) {
	t.Parallel()
	var logs, serverLog syncBuffer
	reg := prometheus.NewRegistry()
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, nil)), metrics: newMetrics(reg)}
	scrape := func() string {
		rec := httptest.NewRecorder()
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	const counted = `workshop_http_requests_abandoned_total{operation="listJobs"} 1`
	started, ended := make(chan struct{}), make(chan struct{})
	h := s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(ended)
		stateOf(r.Context()).operation = "listJobs"
		w.WriteHeader(http.StatusOK) // the answer has begun when the store fails
		close(started)
		<-r.Context().Done()
		writeError(w, r, r.Context().Err()) // what a handler whose read was cancelled does
	}))
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(&serverLog, "", 0)
	srv.Start()
	defer srv.Close()

	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/scheduler/jobs", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body) // the body stays open until the server gives up
		resp.Body.Close()
	}
	<-ended
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(scrape(), counted) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling a condition: the log line follows the handler
	}
	if m := scrape(); !strings.Contains(m, counted) || strings.Contains(m, "workshop_http_requests_total{") {
		t.Fatalf("metrics: got\n%s\nwant %s and no request counted by status", m, counted)
	}
	if l := logs.String(); !strings.Contains(l, `"level":"INFO"`) || !strings.Contains(l, "abandoned") || strings.Contains(l, `"level":"ERROR"`) {
		t.Errorf("log: got %s, want one info line saying abandoned", l)
	}
	if l := serverLog.String(); strings.Contains(l, "superfluous") {
		t.Errorf("server log: got %q, want no superfluous WriteHeader", l)
	}
}
