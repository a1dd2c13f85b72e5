package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
)

// scenario is one measured figure.
type scenario struct {
	description string
	// prepare seeds what the scenario needs and returns its request builder.
	prepare func(ctx context.Context, e *env) (loadgen.Request, error)
	rate    float64 // open loop at this rate (latency); 0: closed loop against the control (ratio)
	// perRound: prepare again before every round (requests that use up
	// what they are sent against, like a step that can start only once).
	perRound bool
	// versus, when set, replaces prepare: it seeds once and returns the
	// target and the baseline the ratio is taken against instead of the
	// fixed-response control (the same read through another door).
	versus func(ctx context.Context, e *env) (target, baseline loadgen.Request, err error)
	// custom, when set, measures the figure itself (webhooks.go: figures
	// that are not request rates against the API).
	custom func(ctx context.Context, e *env, cfg Config) (Figure, error)
}

// scenarios by name; each issue adds its figures here.
var scenarios = map[string]scenario{
	"me": {
		description: "GET /v1/platform/me (key lookup, authorisation, validation) vs a fixed 600-byte JSON handler, closed loop",
		prepare: func(_ context.Context, e *env) (loadgen.Request, error) {
			return e.get("/v1/platform/me", e.orgKey), nil
		},
	},
}

// get builds a GET with the key.
func (e *env) get(path, key string) loadgen.Request {
	return func(int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodGet, e.base+path, nil)
		if err == nil {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		return r, err
	}
}

// prepareAnalyzed prepares the scenario and then has PostgreSQL vacuum
// and analyse what was seeded (Store.VacuumAnalyze): a production
// server's autovacuum would have, and this machine's runs with autovacuum
// off.
func (sc scenario) prepareAnalyzed(ctx context.Context, e *env) (loadgen.Request, error) {
	req, err := sc.prepare(ctx, e)
	if err != nil {
		return nil, err
	}
	return req, e.store.VacuumAnalyze(ctx)
}

func (sc scenario) run(ctx context.Context, e *env, cfg Config) (Figure, error) {
	if sc.custom != nil {
		return sc.custom(ctx, e, cfg)
	}
	control := func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, e.controlBase+"/", nil) }
	var req loadgen.Request
	var err error
	if sc.versus != nil {
		if req, control, err = sc.versus(ctx, e); err == nil {
			err = e.store.VacuumAnalyze(ctx) // as prepareAnalyzed does
		}
	} else {
		req, err = sc.prepareAnalyzed(ctx, e)
	}
	if err != nil {
		return Figure{}, err
	}
	round := 0
	next := func() (loadgen.Request, error) {
		round++
		if !sc.perRound || round == 1 {
			return req, nil
		}
		return sc.prepareAnalyzed(ctx, e)
	}
	if sc.rate > 0 {
		return sc.runOpenLoop(ctx, e, req, cfg)
	}
	f := Figure{Kind: "ratio"}
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(i int) (float64, error) {
		req, err := next()
		if err != nil {
			return 0, err
		}
		c, err := cfg.runClosed(ctx, control)
		if err != nil {
			return 0, err
		}
		run, err := cfg.closedRun(ctx, req)
		if err != nil {
			return 0, err
		}
		var t loadgen.Result
		err = cfg.profiled(e.runName(i), func() (err error) {
			t, err = run()
			return err
		})
		if err != nil {
			return 0, err
		}
		if t.Errors > 0 {
			return 0, fmt.Errorf("%d requests failed; first: %s", t.Errors, t.FirstError)
		}
		r := Round{ControlRPS: c.Throughput, TargetRPS: t.Throughput, Ratio: t.Throughput / c.Throughput,
			P50ms: ms(t.P50), P99ms: ms(t.P99), Errors: t.Errors}
		f.Rounds = append(f.Rounds, r)
		return r.Ratio, nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	return f, err
}

func (sc scenario) runOpenLoop(ctx context.Context, e *env, req loadgen.Request, cfg Config) (Figure, error) {
	f := Figure{Kind: "latency"}
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(i int) (float64, error) {
		var t loadgen.Result
		err := cfg.profiled(e.runName(i), func() (err error) {
			t, err = loadgen.OpenLoop{Rate: sc.rate, Duration: cfg.Duration, Warmup: cfg.Warmup, MaxInFlight: 1024}.Run(ctx, req)
			return err
		})
		if err != nil {
			return 0, err
		}
		f.Rounds = append(f.Rounds, Round{TargetRPS: t.Throughput, P50ms: ms(t.P50), P99ms: ms(t.P99), Errors: t.Errors, Missed: t.Missed})
		return ms(t.P99), nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	return f, err
}

func closed(cfg Config) loadgen.ClosedLoop {
	return loadgen.ClosedLoop{Connections: cfg.Connections, Duration: cfg.Duration, Warmup: cfg.Warmup}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
