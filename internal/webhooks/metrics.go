package webhooks

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/store"
)

// metrics are the dispatcher's Prometheus metrics, on the server's registry.
type metrics struct {
	attempts *prometheus.CounterVec
	latency  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer, st *store.Store) *metrics {
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workshop_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: success, status (non-2xx), redirect (3xx, not followed), timeout, blocked (SSRF guard), network, invalid.",
		}, []string{"outcome"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "workshop_webhook_delivery_latency_seconds",
			Help:    "From the commit of an event to the 2xx of its delivery (retries included).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21600},
		}),
	}
	if reg == nil {
		return m
	}
	m.attempts = register(reg, m.attempts)
	m.latency = register(reg, m.latency)
	_ = reg.Register(&backlogCollector{st: st}) // one per registry is enough
	return m
}

// register registers c, or returns the collector already registered under
// its name (several dispatchers on one registry share them).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

func (m *metrics) attempt(outcome string, succeeded bool, committed time.Time) {
	m.attempts.WithLabelValues(outcome).Inc()
	if succeeded {
		m.latency.Observe(time.Since(committed).Seconds())
	}
}

// backlogCollector reads the delivery backlog from the database at each
// scrape: it is the same for every process on the database.
type backlogCollector struct{ st *store.Store }

var (
	pendingDesc = prometheus.NewDesc("workshop_webhook_deliveries_pending",
		"Deliveries waiting for an attempt: pending, or failed with another attempt scheduled (those of inactive registrations are paused and not counted).", nil, nil)
	oldestDesc = prometheus.NewDesc("workshop_webhook_oldest_pending_age_seconds",
		"Age of the oldest delivery waiting for an attempt (0 when there is none).", nil, nil)
)

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- oldestDesc
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	b, err := c.st.Backlog(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(pendingDesc, err)
		return
	}
	age := 0.0
	if b.Oldest != nil {
		age = max(0, c.st.Now().Sub(b.Oldest.Time()).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(b.Pending))
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age)
}
