// Package bench measures the service the way the issues state their
// figures: each scenario runs against the real API (store, validation,
// idempotency, logging) served in-process on loopback, next to a control
// handler writing a fixed 600-byte JSON body, in interleaved rounds, so that
// a figure is a ratio measured in the same run on the same machine.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/mcpserver"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/webapp"
)

// Config is what to measure and how long.
type Config struct {
	DatabaseURL string // where the bench makes its databases (scratchDatabase); "": a temp dir
	Scenarios   []string
	Rounds      int
	Duration    time.Duration // per measured run
	Warmup      time.Duration
	Connections int
	StepPool    int // fresh steps seeded per round of patch_step
	// ReceiverCommand starts a webhook receiver process (ServeReceiver)
	// when run with --delay D: the slow-receiver scenario needs it.
	ReceiverCommand []string
	// LoadCommand, when set, starts the load process (ServeLoad) that runs
	// the closed loops of ratio scenarios outside this process, and
	// LoadPool bounds the requests recorded for it per run.
	LoadCommand []string
	LoadPool    int
	// Locations and ServeCommand are the promise watch scenario's: how
	// many locations, and the `workshop` binary it starts as serve
	// processes (another build's, to compare).
	Locations    int
	ServeCommand []string
	// Ports is where its servers listen (zero: any free port), Processes
	// the runs' numbers of serve processes (default 1 then 2), Opening how
	// many minutes it measures from every location's opening (0: none).
	Ports     PortRange
	Processes []int
	Opening   time.Duration
	// Profile, when set, is called as each measured run of a scenario's
	// target starts (run names it, e.g. "create_job.2") and returns what
	// ends the profile: seeding and the control stay out of it.
	Profile func(run string) (stop func())
}

// profiled runs f inside cfg.Profile, when there is one.
func (cfg Config) profiled(run string, f func() error) error {
	if cfg.Profile == nil {
		return f()
	}
	defer cfg.Profile(run)()
	return f()
}

// Figure is one scenario's result over the rounds.
type Figure struct {
	Scenario    string    `json:"scenario"`
	Kind        string    `json:"kind"` // "ratio" (closed loop vs control) or "latency" (open loop)
	Database    string    `json:"database"`
	Rounds      []Round   `json:"rounds"`
	Median      float64   `json:"median"` // ratio, or p99 in ms
	Min         float64   `json:"min"`
	Max         float64   `json:"max"`
	Description string    `json:"description"`
	Lines       []string  `json:"lines,omitempty"` // kind "report": the figure's own table`
	At          time.Time `json:"at"`
}

// Round is one measured round.
type Round struct {
	ControlRPS float64 `json:"controlRps,omitempty"`
	TargetRPS  float64 `json:"targetRps"`
	Ratio      float64 `json:"ratio,omitempty"`
	P50ms      float64 `json:"p50Ms"`
	P99ms      float64 `json:"p99Ms"`
	Errors     int64   `json:"errors"`
	Missed     int64   `json:"missed,omitempty"`
}

// env is a running API and control server with a seeded organisation.
type env struct {
	base, controlBase string
	handler           http.Handler // the API, for in-process benchmarks of its server-side cost
	store             *store.Store
	op                *operator.Operator
	orgKey, locKey    string
	mcpToken          string // the owner's MCP token
	orgID, locID      string
	client            *http.Client
	run               string       // distinguishes this run's Idempotency-Keys
	keys              atomic.Int64 // numbers them within the run
	stepPool          int
	clock             func() time.Time
	scenario          string // the one being measured, for profile names
}

// runName names a measured round of the scenario: "create_job.1" is the first.
func (e *env) runName(round int) string { return e.scenario + "." + strconv.Itoa(round+1) }

// Run measures the scenarios and writes a table to w; it returns the
// figures. Each scenario runs on a fresh environment (a database of its
// own, made beside the one Config names: scratchDatabase), so that what
// one seeds does not weigh on the next. "all" names every scenario.
func Run(ctx context.Context, cfg Config, w io.Writer) ([]Figure, error) {
	if cfg.Rounds < 1 || cfg.Connections < 1 || cfg.Duration <= 0 {
		return nil, errors.New("bench: rounds, connections and duration must be positive")
	}
	names := cfg.Scenarios
	if len(names) == 1 && names[0] == "all" {
		names = ScenarioNames()
	}
	for _, name := range names {
		if _, ok := scenarios[name]; !ok {
			return nil, fmt.Errorf("bench: unknown scenario %q; known: all, %s", name, strings.Join(ScenarioNames(), ", "))
		}
	}
	var figures []Figure
	for _, name := range names {
		f, err := runOne(ctx, cfg, name, w)
		if err != nil {
			return figures, fmt.Errorf("bench %s: %w", name, err)
		}
		figures = append(figures, f)
		printFigure(w, f)
	}
	return figures, nil
}

func runOne(ctx context.Context, cfg Config, name string, w io.Writer) (Figure, error) {
	e, cleanup, err := start(ctx, cfg.DatabaseURL, cfg.StepPool)
	if err != nil {
		return Figure{}, err
	}
	defer cleanup()
	e.scenario = name
	sc := scenarios[name]
	fmt.Fprintf(w, "running %s on %s (%d rounds)...\n", name, e.store.Dialect(), cfg.Rounds)
	f, err := sc.run(ctx, e, cfg)
	f.Scenario, f.Database, f.Description, f.At = name, e.store.Dialect(), sc.description, time.Now().UTC()
	return f, err
}

// ScenarioNames lists the scenarios in a stable order.
func ScenarioNames() []string {
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func start(ctx context.Context, dbURL string, stepPool int) (*env, func(), error) {
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	dbURL, drop, err := scratchDatabase(ctx, dbURL, "workshop-bench")
	if err != nil {
		return nil, nil, err
	}
	cleanups = append(cleanups, drop)
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanups = append(cleanups, func() { st.Close() })
	// The API logs as in production (JSON, one line per request), to nowhere.
	api, err := httpapi.New(st, httpapi.Config{ArrivalSkew: 5 * time.Minute, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	mcpHandler, err := mcpserver.HTTPHandler(api, mcpserver.Options{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	api.Mount("/mcp", mcpHandler)
	// The application as `workshop serve` mounts it, with its change
	// watcher running (the live board's scenarios need it).
	app, err := webapp.New(st, webapp.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	api.Mount("/", app.Handler())
	liveCtx, stopLive := context.WithCancel(context.WithoutCancel(ctx))
	liveDone := make(chan struct{})
	go func() { defer close(liveDone); app.Run(liveCtx) }()
	cleanups = append(cleanups, func() { stopLive(); <-liveDone })
	handler := api.Handler()
	base, stop, err := listen(handler)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanups = append(cleanups, stop)
	controlBase, stopControl, err := listen(loadgen.ControlHandler())
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanups = append(cleanups, stopControl)
	e := &env{handler: handler, base: base, controlBase: controlBase, store: st, op: operator.New(st), client: &http.Client{Timeout: 30 * time.Second},
		run: strconv.FormatInt(time.Now().UnixNano(), 36), stepPool: stepPool, clock: time.Now}
	if err := e.seed(ctx); err != nil {
		cleanup()
		return nil, nil, err
	}
	return e, cleanup, nil
}

func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// seed makes an organisation with a location, an owner and keys.
func (e *env) seed(ctx context.Context) error {
	org, err := e.op.CreateOrg(ctx, "Bench Motors", "pro")
	if err != nil {
		return err
	}
	loc, err := e.op.CreateLocation(ctx, org.ID, "Bench Berlin", "Europe/Berlin", "EUR")
	if err != nil {
		return err
	}
	u, err := e.op.CreateUser(ctx, org.ID, fmt.Sprintf("owner-%d@bench.example", time.Now().UnixNano()), "owner", false)
	if err != nil {
		return err
	}
	orgKey, err := e.op.CreateKey(ctx, operator.KeyRequest{UserID: u.ID})
	if err != nil {
		return err
	}
	locKey, err := e.op.CreateKey(ctx, operator.KeyRequest{UserID: u.ID, LocationID: loc.ID})
	if err != nil {
		return err
	}
	token, err := e.op.CreateMCPToken(ctx, u.ID)
	if err != nil {
		return err
	}
	e.orgID, e.locID, e.orgKey, e.locKey, e.mcpToken = org.ID, loc.ID, orgKey.Key, locKey.Key, token.Token
	return nil
}

func printFigure(w io.Writer, f Figure) {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	switch f.Kind {
	case "report":
		for _, l := range f.Lines {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w)
	case "ratio":
		fmt.Fprintln(tw, "round\tcontrol req/s\ttarget req/s\tratio\ttarget p50 ms\ttarget p99 ms\terrors")
		for i, r := range f.Rounds {
			fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.3f\t%.2f\t%.2f\t%d\n", i+1, r.ControlRPS, r.TargetRPS, r.Ratio, r.P50ms, r.P99ms, r.Errors)
		}
		tw.Flush()
		fmt.Fprintf(w, "%s on %s: ratio to control median %.3f (min %.3f, max %.3f)\n\n", f.Scenario, f.Database, f.Median, f.Min, f.Max)
	default:
		fmt.Fprintln(tw, "round\treq/s\tp50 ms\tp99 ms\terrors\tmissed")
		for i, r := range f.Rounds {
			fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%.2f\t%d\t%d\n", i+1, r.TargetRPS, r.P50ms, r.P99ms, r.Errors, r.Missed)
		}
		tw.Flush()
		fmt.Fprintf(w, "%s on %s: p99 median %.2f ms (min %.2f, max %.2f)\n\n", f.Scenario, f.Database, f.Median, f.Min, f.Max)
	}
}

// WriteJSON writes the figures as JSON (for the record in the repository).
func WriteJSON(w io.Writer, figures []Figure) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(figures)
}
