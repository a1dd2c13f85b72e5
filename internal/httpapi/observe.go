package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// metrics are the HTTP metrics, registered on the server's own registry.
type metrics struct {
	requests  *prometheus.CounterVec
	abandoned *prometheus.CounterVec
	duration  *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workshop_http_requests_total", Help: "HTTP requests by operation and status.",
		}, []string{"operation", "status"}),
		abandoned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workshop_http_requests_abandoned_total",
			Help: "HTTP requests whose client went away before they were answered, by operation (not in workshop_http_requests_total).",
		}, []string{"operation"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workshop_http_request_duration_seconds", Help: "HTTP request latency by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"operation"}),
	}
	reg.MustRegister(m.requests, m.abandoned, m.duration)
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
		if r.ContentLength != 0 && s.bodyTimeout > 0 {
			r.Body = newDeadlineBody(w, r.Body, s.bodyTimeout)
		}
		next.ServeHTTP(sw, r)
	})
}

// abandoned tells whether the client of r went away before it was
// answered: its context was cancelled while the handler ran (net/http does
// when the connection closes; it cancels every request's context only
// after the handler returned) and the handler failed: it sent no success,
// or met an error after its status went out (its write to the gone client
// failed). Such a request is no failure of the service, whatever its
// handler made of the cancellation. A stream the client ended after its
// 200 is not one.
func abandoned(r *http.Request, st *reqState, status int) bool {
	return errors.Is(r.Context().Err(), context.Canceled) && (status == 0 || status >= 500 || st.cause != nil)
}

func (s *Server) logRequest(r *http.Request, st *reqState, status int, took time.Duration) {
	op := st.operation
	if op == "" {
		op = "other"
	}
	msg, level, gone := "request", slog.LevelInfo, abandoned(r, st, status)
	switch {
	case gone:
		msg = "request abandoned: the client went away"
		s.metrics.abandoned.WithLabelValues(op).Inc()
	case status >= 500:
		level = slog.LevelError
	}
	if !gone {
		s.metrics.requests.WithLabelValues(op, strconv.Itoa(status)).Inc()
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
	if st.cause != nil && !gone {
		attrs = append(attrs, slog.String("error", st.cause.Error()))
	}
	s.log.LogAttrs(r.Context(), level, msg, attrs...)
}
