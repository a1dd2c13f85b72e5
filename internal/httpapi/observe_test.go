package httpapi

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/workshop-platform/workshop/internal/workshop"
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

// A request whose client goes away is logged at info as abandoned with
// status 499 and counted as 499, never as a 500 nor as a 400; its
// handler's late error answer makes no "superfluous WriteHeader". A
// request answered whole is counted as what it answered.
func TestAbandonedRequestIs499(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// handle is the handler; started is closed once the client may go.
		handle func(w http.ResponseWriter, r *http.Request, started chan<- struct{})
		// send makes the request and goes away once started is closed.
		send       func(t *testing.T, url string, started <-chan struct{})
		wantStatus string
	}{
		{
			name: "cancelled after the status went out",
			handle: func(w http.ResponseWriter, r *http.Request, started chan<- struct{}) {
				w.WriteHeader(http.StatusOK) // the answer has begun when the store fails
				close(started)
				<-r.Context().Done()
				writeError(w, r, r.Context().Err()) // what a handler whose read was cancelled does
			},
			send: cancelAfter, wantStatus: "499",
		},
		{
			name: "cancelled before anything was answered",
			handle: func(w http.ResponseWriter, r *http.Request, started chan<- struct{}) {
				close(started)
				<-r.Context().Done()
				writeError(w, r, r.Context().Err())
			},
			send: cancelAfter, wantStatus: "499",
		},
		{
			name: "half a body, then a hang-up",
			handle: func(w http.ResponseWriter, r *http.Request, started chan<- struct{}) {
				close(started)
				if _, err := io.ReadAll(r.Body); err != nil { // what readBody does
					writeError(w, r, workshop.Errorf(workshop.CodeInvalidJSON, "The body could not be read."))
				}
			},
			send: func(t *testing.T, url string, started <-chan struct{}) {
				conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.WriteString(conn, "POST /v1/scheduler/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"vehiclePlate\":")
				<-started
				conn.Close()
			},
			wantStatus: "499",
		},
		{
			name: "answered whole",
			handle: func(w http.ResponseWriter, r *http.Request, started chan<- struct{}) {
				close(started)
				writeError(w, r, workshop.Errorf(workshop.CodeInvalidJSON, "The body is not valid JSON."))
			},
			send: func(t *testing.T, url string, _ <-chan struct{}) {
				resp, err := http.Post(url+"/v1/scheduler/jobs", "application/json", strings.NewReader("{"))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			},
			wantStatus: "400",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs, serverLog syncBuffer
			reg := prometheus.NewRegistry()
			s := &Server{log: slog.New(slog.NewJSONHandler(&logs, nil)), metrics: newMetrics(reg)}
			started, ended := make(chan struct{}), make(chan struct{})
			h := s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(ended)
				stateOf(r.Context()).operation = "listJobs"
				tc.handle(w, r, started)
			}))
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ErrorLog = log.New(&serverLog, "", 0)
			srv.Start()
			defer srv.Close()
			tc.send(t, srv.URL, started)
			<-ended
			counted := `workshop_http_requests_total{operation="listJobs",status="` + tc.wantStatus + `"} 1`
			m := waitForMetric(t, reg, counted)
			if tc.wantStatus == "499" && strings.Contains(m, `workshop_http_request_duration_seconds_count{operation="listJobs"}`) {
				t.Errorf("metrics: an abandoned request's duration was observed:\n%s", m)
			}
			line := logs.String()
			wantMsg := `"msg":"request"`
			if tc.wantStatus == "499" {
				wantMsg = `"msg":"request abandoned: the client went away"`
			}
			if !strings.Contains(line, `"level":"INFO"`) || !strings.Contains(line, wantMsg) || !strings.Contains(line, `"status":`+tc.wantStatus) {
				t.Errorf("log: got %s, want one info line %s with status %s", line, wantMsg, tc.wantStatus)
			}
			if l := serverLog.String(); strings.Contains(l, "superfluous") {
				t.Errorf("server log: got %q, want no superfluous WriteHeader", l)
			}
		})
	}
}

// cancelAfter sends a GET and cancels it once started is closed.
func cancelAfter(t *testing.T, url string, started <-chan struct{}) {
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/scheduler/jobs", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body) // the body stays open until the server gives up
		resp.Body.Close()
	}
}

// waitForMetric scrapes reg until it has line (the log line and the count
// follow the handler's return) and returns the last scrape.
func waitForMetric(t *testing.T, reg *prometheus.Registry, line string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := httptest.NewRecorder()
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		m := rec.Body.String()
		if strings.Contains(m, line) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics: got\n%s\nwant %s", m, line)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}
