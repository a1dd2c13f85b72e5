package main

import (
	"database/sql"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/buildinfo"
)

// buildInfoGauge is workshop_build_info{version,commit,goversion} 1: which
// build a process runs, to join with its other series.
func buildInfoGauge(info buildinfo.Info) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "workshop_build_info", Help: "The build the process runs: always 1.",
		ConstLabels: prometheus.Labels{"version": info.Version, "commit": info.Commit, "goversion": info.GoVersion},
	})
	g.Set(1)
	return g
}

// poolCollector reports the store's connection pools (sql.DBStats) at each
// scrape, labelled by pool.
type poolCollector struct {
	stats                                   func() map[string]sql.DBStats
	open, inUse, idle, waitCount, waitTotal *prometheus.Desc
}

func newPoolCollector(stats func() map[string]sql.DBStats) *poolCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("workshop_db_pool_"+name, help, []string{"pool"}, nil)
	}
	return &poolCollector{stats: stats,
		open:      desc("open_connections", "Connections open, in use or idle."),
		inUse:     desc("in_use_connections", "Connections in use."),
		idle:      desc("idle_connections", "Idle connections."),
		waitCount: desc("wait_count_total", "Connections waited for, since the start."),
		waitTotal: desc("wait_duration_seconds_total", "Time spent waiting for a connection, since the start."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.open, c.inUse, c.idle, c.waitCount, c.waitTotal} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for pool, s := range c.stats() {
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(s.OpenConnections), pool)
		ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(s.InUse), pool)
		ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.Idle), pool)
		ch <- prometheus.MustNewConstMetric(c.waitCount, prometheus.CounterValue, float64(s.WaitCount), pool)
		ch <- prometheus.MustNewConstMetric(c.waitTotal, prometheus.CounterValue, s.WaitDuration.Seconds(), pool)
	}
}
