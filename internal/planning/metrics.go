package planning

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// QueueStore reads the promise watch's backlog.
type QueueStore interface {
	WatchQueueAt(ctx context.Context, now time.Time) (store.WatchQueue, error)
}

// WatchMetrics counts the turns a watch told (workshop_promise_watch_
// transitions_total{event}); a nil one counts nothing.
type WatchMetrics struct {
	transitions *prometheus.CounterVec
	// lookSeconds is how long a look took (plan, record); changeToLook how
	// long from a change (the oldest waiting) to the end of its look.
	lookSeconds, changeToLook prometheus.Histogram
}

// looked records a look that took took, ending at end; changedAt is its
// waiting change's time (zero: a look by time alone).
func (m *WatchMetrics) looked(took time.Duration, end, changedAt time.Time) {
	if m == nil {
		return
	}
	m.lookSeconds.Observe(took.Seconds())
	if !changedAt.IsZero() {
		m.changeToLook.Observe(max(0, end.Sub(changedAt).Seconds()))
	}
}

func (m *WatchMetrics) told(turns []workshop.PromiseTurn) {
	if m == nil {
		return
	}
	for _, t := range turns {
		m.transitions.WithLabelValues(t.Event).Inc()
	}
}

// RegisterMetrics registers on reg the plan cache's and the promise
// watch's metrics and returns the watch's counter: the cache's hits,
// misses, plans and estimated bytes, and, read from the database at each
// scrape (through the watch's indexes), the locations due and how long the
// oldest has waited.
func RegisterMetrics(reg prometheus.Registerer, plans *Service, st QueueStore) *WatchMetrics {
	m := &WatchMetrics{transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workshop_promise_watch_transitions_total",
		Help: "Promise turns told by this process's watch (job.at_risk, job.on_track).",
	}, []string{"event"}),
		lookSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "workshop_promise_watch_look_seconds",
			Help:    "How long a look of this process's promise watch took (the plan and the record of its turns).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		changeToLook: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "workshop_promise_watch_change_to_look_seconds",
			Help:    "From a change to a location (the oldest waiting) to the end of the look that took it in, by this process.",
			Buckets: []float64{.1, .25, .5, 1, 2, 3, 5, 7.5, 10, 15, 30, 60},
		}),
	}
	reg.MustRegister(m.transitions, m.lookSeconds, m.changeToLook, &cacheCollector{plans: plans}, &queueCollector{st: st})
	return m
}

var (
	cacheHitsDesc   = prometheus.NewDesc("workshop_plan_cache_hits_total", "Plans answered from the plan cache (or a computation in flight).", nil, nil)
	cacheMissesDesc = prometheus.NewDesc("workshop_plan_cache_misses_total", "Plans computed.", nil, nil)
	cachePlansDesc  = prometheus.NewDesc("workshop_plan_cache_plans", "Plans kept.", nil, nil)
	cacheBytesDesc  = prometheus.NewDesc("workshop_plan_cache_bytes", "Estimated memory of the plans kept (bounded by the cache's size).", nil, nil)
	queueDueDesc    = prometheus.NewDesc("workshop_promise_watch_queue_length", "Locations due for a look of the promise watch (changed, or due by time).", nil, nil)
	queueOldestDesc = prometheus.NewDesc("workshop_promise_watch_oldest_due_seconds", "How long the location due longest has waited (0: none due).", nil, nil)
)

type cacheCollector struct{ plans *Service }

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheHitsDesc
	ch <- cacheMissesDesc
	ch <- cachePlansDesc
	ch <- cacheBytesDesc
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.plans.CacheStats()
	ch <- prometheus.MustNewConstMetric(cacheHitsDesc, prometheus.CounterValue, float64(st.Hits))
	ch <- prometheus.MustNewConstMetric(cacheMissesDesc, prometheus.CounterValue, float64(st.Misses))
	ch <- prometheus.MustNewConstMetric(cachePlansDesc, prometheus.GaugeValue, float64(st.Plans))
	ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(st.Bytes))
}

type queueCollector struct{ st QueueStore }

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDueDesc
	ch <- queueOldestDesc
}

// Collect reads the backlog; a failed read reports nothing (the scrape
// goes on with the other metrics).
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	q, err := c.st.WatchQueueAt(ctx, time.Now())
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(queueDueDesc, prometheus.GaugeValue, float64(q.Due))
	ch <- prometheus.MustNewConstMetric(queueOldestDesc, prometheus.GaugeValue, q.OldestDue.Seconds())
}
