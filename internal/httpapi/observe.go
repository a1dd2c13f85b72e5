package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// metrics are the HTTP metrics, registered on the server's own registry.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workshop_http_requests_total",
			Help: "HTTP requests by operation and status; 499: the client went away before its answer (not an error of the service).",
		}, []string{"operation", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workshop_http_request_duration_seconds", Help: "HTTP request latency by operation, of the requests answered (not of those abandoned, 499).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"operation"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader passes the first status on and drops any later one: a
// handler whose write failed (the client went away) may answer its error
// after the status went out, which net/http would log as a superfluous
// WriteHeader.
func (w *statusWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// StatusClientClosed is the status a request is logged and counted with
// when its client went away before it was answered (nginx's 499 "client
// closed request"): no answer reached the client, and the service did not
// fail. It is never sent.
const StatusClientClosed = 499

// observe gives every request its id, recovers a panic into a 500 problem,
// and logs one line and counts metrics when the request ends. The log line
// has the request id, the client's address (the connection's: a forwarded
// header is the client's own say), its user agent, the key id, the status
// and the duration; never a key, a token or a body.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &reqState{id: workshop.NewID(workshop.PrefixRequest)}
		r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
		w.Header().Set("X-Request-Id", st.id)
		w.Header().Set("X-Content-Type-Options", "nosniff") // a body is what its Content-Type says, never sniffed as HTML
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				st.cause = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				if sw.status == 0 {
					writeError(sw, r, st.cause)
				}
			}
			s.logRequest(r, st, sw.status, time.Since(start))
		}()
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &cutBody{ReadCloser: r.Body, st: st}
			if s.bodyTimeout > 0 {
				r.Body = newDeadlineBody(w, r.Body, s.bodyTimeout)
			}
		}
		next.ServeHTTP(sw, r)
	})
}

// cutBody notes a request body that ended before it was whole: the
// connection closed or failed mid-body (half a body, then a hang-up),
// which net/http reports as an unexpected EOF or the connection's error.
// The client is gone: whatever the handler answers, nobody reads it.
type cutBody struct {
	io.ReadCloser
	st *reqState
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, os.ErrDeadlineExceeded) && !isTooLarge(err) {
		b.st.bodyCut = true
	}
	return n, err
}

func isTooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

// abandoned tells whether the client of r went away before it was
// answered: its body was cut off mid-way, or its context was cancelled
// while the handler ran (net/http does when the connection closes; it
// cancels every request's context only after the handler returned) and
// the handler failed: it sent no success, or met an error after its
// status went out (its write to the gone client failed). Such a request is
// no failure of the service, whatever its handler made of the
// cancellation: it is logged and counted as 499. A stream the client
// ended after its 200 is not one.
func abandoned(r *http.Request, st *reqState, status int) bool {
	if !errors.Is(r.Context().Err(), context.Canceled) {
		return false
	}
	return st.bodyCut || status == 0 || status >= 500 || st.cause != nil
}

func (s *Server) logRequest(r *http.Request, st *reqState, status int, took time.Duration) {
	op := st.operation
	if op == "" {
		op = "other"
	}
	msg, level := "request", slog.LevelInfo
	switch {
	case abandoned(r, st, status):
		msg, status = "request abandoned: the client went away", StatusClientClosed
	case status >= 500:
		level = slog.LevelError
	}
	s.metrics.requests.WithLabelValues(op, strconv.Itoa(status)).Inc()
	if status != StatusClientClosed {
		s.metrics.duration.WithLabelValues(op).Observe(took.Seconds())
	}
	if !s.log.Enabled(r.Context(), level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("request_id", st.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.String("operation", op), slog.Int("status", status),
		slog.String("client_addr", r.RemoteAddr), slog.String("user_agent", r.UserAgent()),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
	}
	if p := st.principal; p != nil {
		attrs = append(attrs, slog.String("key_id", p.KeyID), slog.String("org_id", p.OrgID))
	}
	if st.cause != nil && status != StatusClientClosed {
		attrs = append(attrs, slog.String("error", st.cause.Error()))
	}
	s.log.LogAttrs(r.Context(), level, msg, attrs...)
}
