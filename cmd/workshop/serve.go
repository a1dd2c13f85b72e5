package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/workshop-platform/workshop/internal/apidocs"
	"github.com/workshop-platform/workshop/internal/backup"
	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/mcpserver"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/webapp"
	"github.com/workshop-platform/workshop/internal/webhooks"
)

// defaultAddr is the listen address without --addr or WORKSHOP_ADDR.
const defaultAddr = "127.0.0.1:8080"

// serveConfig is every setting of `workshop serve` (contract section 1).
type serveConfig struct {
	database, addr       string
	retryDelays          []time.Duration
	webhookTimeout       time.Duration
	webhookAllowInsecure bool
	arrivalSkew          time.Duration
	rateLimitPerMinute   int
	demo                 bool
	shutdownGrace        time.Duration
	bodyTimeout          time.Duration     // how long a request's whole body may take
	backups              backup.Schedule   // Dir "": no scheduled backups
	mcpAllowedOrigins    []string          // browser origins besides the server's own allowed at /mcp
	onListen             func(addr string) // tests learn the port of --addr :0
	// now is the server's clock: time.Now, or a test's fixed one (a day
	// close made the morning after, at a time of the test's choosing).
	now func() time.Time
}

func parseServe(args []string, getenv env) (serveConfig, error) {
	fs := newFlags("serve")
	c := serveConfig{}
	db := databaseFlag(fs, getenv)
	addr := getenv.string(fs, "addr", "WORKSHOP_ADDR", defaultAddr, "listen address")
	delays := getenv.string(fs, "webhook-retry-delays", "WORKSHOP_WEBHOOK_RETRY_DELAYS", "1m,5m,30m,2h", "delays before webhook attempts 2, 3, ...")
	timeout := getenv.string(fs, "webhook-timeout", "WORKSHOP_WEBHOOK_TIMEOUT", "10s", "webhook endpoint timeout")
	fs.BoolVar(&c.webhookAllowInsecure, "webhook-allow-insecure", getenv("WORKSHOP_WEBHOOK_ALLOW_INSECURE") == "1",
		"allow http:// and private webhook targets, development only (env WORKSHOP_WEBHOOK_ALLOW_INSECURE=1)")
	skew := getenv.string(fs, "arrival-skew", "WORKSHOP_ARRIVAL_SKEW", "5m", "tolerated clock skew of arrival times")
	rate := getenv.string(fs, "rate-limit", "WORKSHOP_RATE_LIMIT", "1200/m", "requests per key, e.g. 1200/m; 0 = off")
	origins := getenv.string(fs, "mcp-allowed-origins", "WORKSHOP_MCP_ALLOWED_ORIGINS", "", "browser origins besides the server's own that may call /mcp, e.g. https://assistant.example")
	grace := getenv.string(fs, "shutdown-grace", "WORKSHOP_SHUTDOWN_GRACE", "20s", "how long requests in flight may finish when the server stops")
	bodyTimeout := getenv.string(fs, "body-timeout", "WORKSHOP_BODY_TIMEOUT", "30s", "how long a request's whole body may take to arrive; a slower one is cut (0 = no limit)")
	fs.StringVar(&c.backups.Dir, "backup-dir", getenv("WORKSHOP_BACKUP_DIR"), "take scheduled backups of the SQLite database into this directory (env WORKSHOP_BACKUP_DIR)")
	every := getenv.string(fs, "backup-every", "WORKSHOP_BACKUP_EVERY", "24h", "how often to take a scheduled backup")
	fs.IntVar(&c.backups.Keep, "backup-keep", 7, "how many scheduled backups to keep, the newest (0 = all)")
	fs.BoolVar(&c.demo, "demo", false, "seed the demo organisation and print its keys")
	rest, err := parse(fs, args)
	if err != nil {
		return c, err
	}
	if len(rest) > 0 {
		return c, fmt.Errorf("unexpected argument %q", rest[0])
	}
	c.database, c.addr = *db, *addr
	if c.retryDelays, err = parseDelays(*delays); err != nil {
		return c, err
	}
	if c.webhookTimeout, err = time.ParseDuration(*timeout); err != nil || c.webhookTimeout <= 0 {
		return c, fmt.Errorf("--webhook-timeout: %q is not a positive duration", *timeout)
	}
	if c.arrivalSkew, err = time.ParseDuration(*skew); err != nil || c.arrivalSkew < 0 {
		return c, fmt.Errorf("--arrival-skew: %q is not a duration", *skew)
	}
	if c.rateLimitPerMinute, err = parseRate(*rate); err != nil {
		return c, err
	}
	if c.shutdownGrace, err = time.ParseDuration(*grace); err != nil || c.shutdownGrace <= 0 {
		return c, fmt.Errorf("--shutdown-grace: %q is not a positive duration", *grace)
	}
	if c.bodyTimeout, err = time.ParseDuration(*bodyTimeout); err != nil || c.bodyTimeout < 0 {
		return c, fmt.Errorf("--body-timeout: %q is not a duration such as 30s", *bodyTimeout)
	}
	if c.backups.Every, err = time.ParseDuration(*every); err != nil || c.backups.Every <= 0 {
		return c, fmt.Errorf("--backup-every: %q is not a positive duration such as 24h", *every)
	}
	if c.backups.Keep < 0 {
		return c, fmt.Errorf("--backup-keep: %d is negative", c.backups.Keep)
	}
	for _, o := range list(*origins) {
		origin, err := httpapi.ParseOrigin(o)
		if err != nil {
			return c, fmt.Errorf("--mcp-allowed-origins: %w", err)
		}
		c.mcpAllowedOrigins = append(c.mcpAllowedOrigins, origin)
	}
	return c, nil
}

func serve(ctx context.Context, args []string, getenv env, stdout, stderr io.Writer) error {
	c, err := parseServe(args, getenv)
	if err != nil {
		return err
	}
	return serveWith(ctx, c, stdout, stderr)
}

func serveWith(ctx context.Context, c serveConfig, stdout, stderr io.Writer) (err error) {
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	// The last line of a clean stop, once requests, the dispatcher and the
	// database are done with (deferred first, so it runs last).
	var stopping time.Time
	defer func() {
		if !stopping.IsZero() && err == nil {
			log.Info("stopped", "took_ms", time.Since(stopping).Milliseconds())
		}
	}()
	// The port first: a server that cannot listen fails before it opens,
	// creates or migrates the database. It holds the port from here on;
	// connections wait in the backlog until it serves.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: cannot listen there (%w); is another server using it? Choose another with --addr", c.addr, err)
	}
	defer ln.Close() // Serve closes it too; this is for the returns before
	if c.now == nil {
		c.now = time.Now
	}
	st, err := store.Open(ctx, c.database, store.WithClock(c.now))
	if err != nil {
		return err
	}
	defer st.Close()
	var demo *operator.DemoOut
	if c.demo {
		out, err := operator.New(st).Demo(ctx)
		if err != nil {
			return fmt.Errorf("seed the demo: %w", err)
		}
		demo = &out
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfoGauge(build), newPoolCollector(st.PoolStats))
	guard := &webhooks.Guard{AllowInsecure: c.webhookAllowInsecure}
	plans := planning.New(st)
	watchMetrics := planning.RegisterMetrics(reg, plans, st)
	api, err := httpapi.New(st, httpapi.Config{RateLimitPerMinute: c.rateLimitPerMinute, ArrivalSkew: c.arrivalSkew, BodyTimeout: c.bodyTimeout, Logger: log, Registry: reg,
		WebhookGuard: guard, Plans: plans, Now: c.now})
	if err != nil {
		return err
	}
	// The read-only AI connection: the REST reads as MCP tools at /mcp.
	mcpHandler, err := mcpserver.HTTPHandler(api, mcpserver.Options{Version: build.Version, Logger: log,
		AllowedOrigins: c.mcpAllowedOrigins})
	if err != nil {
		return err
	}
	api.Mount("/mcp", mcpHandler)
	// The rendered API reference, before the application takes every
	// other path.
	docs := apidocs.Handler()
	api.Mount("/docs", docs)
	api.Mount("/docs/", docs)
	app, err := webapp.New(st, webapp.Config{Logger: log, Plans: plans, WebhookGuard: guard, Now: c.now})
	if err != nil {
		return err
	}
	api.Mount("/", app.Handler())
	// The live board's watcher: one per process. It stops when shutdown
	// begins (RegisterOnShutdown below), which ends the open board streams:
	// Shutdown waits for handlers, and a stream would never return.
	lctx, stopLive := context.WithCancel(context.WithoutCancel(ctx))
	liveDone := make(chan struct{})
	go func() { defer close(liveDone); app.Run(lctx) }()
	defer func() { stopLive(); <-liveDone }()
	// The dispatcher stops after the HTTP server (deferred): attempts in
	// flight get up to the webhook timeout to finish and be recorded.
	dispatcher := webhooks.New(st, webhooks.Config{RetryDelays: c.retryDelays, Timeout: c.webhookTimeout, Guard: guard,
		ShutdownGrace: min(c.shutdownGrace, c.webhookTimeout+time.Second), Registry: reg, Logger: log})
	dctx, stopDispatcher := context.WithCancel(context.WithoutCancel(ctx))
	dispatcherDone := make(chan struct{})
	go func() { defer close(dispatcherDone); _ = dispatcher.Run(dctx) }()
	defer func() { stopDispatcher(); <-dispatcherDone }()
	// The promise watch tells job.at_risk and job.on_track (its events go
	// out through the dispatcher, which stops after it).
	wctx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	watchDone := make(chan struct{})
	watch := planning.NewWatch(plans, st, log)
	watch.Now = c.now
	watch.Metrics = watchMetrics
	stopWake := st.OnEventsCommitted(watch.Wake) // this process's writes are looked at without waiting for the tick
	go func() { defer close(watchDone); watch.Run(wctx) }()
	defer func() { stopWatch(); <-watchDone; stopWake() }()
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	srv.RegisterOnShutdown(stopLive)
	log.Info("serving", "addr", ln.Addr().String(), "database", st.Dialect())
	if demo != nil {
		printDemo(stdout, *demo, ln.Addr().String())
	} else if err := printSetupLink(ctx, stdout, st, ln.Addr().String()); err != nil {
		return err
	}
	if c.onListen != nil {
		c.onListen(ln.Addr().String())
	}
	go purgeIdempotencyKeys(ctx, st, log)
	go sweepCustomerData(ctx, st, c.now, log)
	if c.backups.Dir != "" {
		if st.Dialect() != "sqlite" {
			return errors.New("--backup-dir: scheduled backups are for SQLite; back PostgreSQL up with pg_dump")
		}
		bctx, stopBackups := context.WithCancel(ctx)
		backupsDone := make(chan struct{})
		go func() { defer close(backupsDone); backup.New(st, c.backups, reg, log).Run(bctx) }()
		defer func() { stopBackups(); <-backupsDone }()
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stopping = time.Now()
	log.Info("shutting down: finishing requests in flight", "grace", c.shutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// purgeIdempotencyKeys drops Idempotency-Keys past their retention, hourly.
// sweepCustomerData erases expired customer data (contract section 4):
// every ten minutes it sweeps the locations whose daily sweep is due; the
// store lets one process do each location's day.
func sweepCustomerData(ctx context.Context, st *store.Store, now func() time.Time, log *slog.Logger) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		if n, err := st.SweepCustomerData(ctx, now()); err != nil && ctx.Err() == nil {
			log.Warn("customer data sweep", "error", err)
		} else if n.Jobs > 0 || n.Waiting > 0 {
			log.Info("customer data sweep", "locations", n.Locations, "jobs", n.Jobs, "waiting_for_day_close", n.Waiting)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func purgeIdempotencyKeys(ctx context.Context, st *store.Store, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := st.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
			log.Warn("purge idempotency keys", "error", err)
		} else if n > 0 {
			log.Info("purged idempotency keys", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
