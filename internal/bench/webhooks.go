package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The webhook figures: how fast the dispatcher empties an outbox, how its
// worker pool fares against a slow endpoint, the latency from commit to
// receiver at a steady event rate, and what delivering costs the API.

func init() {
	scenarios["webhook_throughput"] = scenario{
		description: "deliveries/s from a pre-filled outbox (10,000 job.created events, 4 registrations: 40,000 deliveries) to a local receiver answering 200 at once; default pool (64 workers, 8 per registration); fan-out included",
		custom:      func(ctx context.Context, e *env, cfg Config) (Figure, error) { return webhookThroughput(ctx, e, cfg) },
	}
	scenarios["webhook_slow_receiver"] = scenario{
		description: "deliveries/s to 16 registrations whose receiver (a process of its own, as a real one is) answers in 20 ms, about 4 s of work per run, against the pool size: the ideal is workers / 20 ms",
		custom:      func(ctx context.Context, e *env, cfg Config) (Figure, error) { return webhookSlowReceiver(ctx, e, cfg) },
	}
	scenarios["webhook_latency"] = scenario{
		description: "latency from the commit of an event (its write acknowledged) to its arrival at a local receiver, job.created written at 1,000 events/s (open loop, through the store, 8 writers over 8 locations), 1 registration; the report also gives it from the start of the writing transaction",
		custom:      func(ctx context.Context, e *env, cfg Config) (Figure, error) { return webhookLatency(ctx, e, cfg) },
	}
	scenarios["webhook_job_overhead"] = scenario{
		description: "POST /v1/scheduler/jobs, closed loop, with the dispatcher delivering every job.created to a local receiver vs without a dispatcher, interleaved rounds in one run",
		custom:      func(ctx context.Context, e *env, cfg Config) (Figure, error) { return webhookJobOverhead(ctx, e, cfg) },
	}
}

// hookReceiver counts deliveries per path and can note when each job's
// arrived; delay holds every answer.
type hookReceiver struct {
	base  string
	stop  func()
	delay time.Duration

	mu       sync.Mutex
	count    map[string]*atomic.Int64
	arrivals map[string]time.Time // job id -> arrival, when tracking
	track    atomic.Bool
}

func startHookReceiver(delay time.Duration) (*hookReceiver, error) {
	r := &hookReceiver{delay: delay, count: map[string]*atomic.Int64{}, arrivals: map[string]time.Time{}}
	base, stop, err := listen(r)
	if err != nil {
		return nil, err
	}
	r.base, r.stop = base, stop
	return r, nil
}

func (r *hookReceiver) counter(path string) *atomic.Int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.count[path]
	if c == nil {
		c = &atomic.Int64{}
		r.count[path] = c
	}
	return c
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(req.Body)
	if r.track.Load() {
		var b struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &b) == nil {
			r.mu.Lock()
			r.arrivals[b.Data.ID] = at
			r.mu.Unlock()
		}
	}
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	w.WriteHeader(http.StatusOK)
	r.counter(req.URL.Path).Add(1)
}

// waitCount waits until path has n deliveries (at most limit).
func (r *hookReceiver) waitCount(ctx context.Context, path string, n int64, limit time.Duration) error {
	c := r.counter(path)
	return waitFor(ctx, path, n, limit, func() (int64, error) { return c.Load(), nil })
}

// waitFor waits until count says path has n deliveries (at most limit).
func waitFor(ctx context.Context, path string, n int64, limit time.Duration, count func() (int64, error)) error {
	deadline := time.Now().Add(limit)
	for {
		got, err := count()
		if err != nil {
			return err
		}
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d of %d deliveries arrived on %s within %s", got, n, path, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// hooks registers k active registrations for job.created at url (path+i)
// and deactivates every earlier one, so each round delivers only its own.
func (e *env) hooks(ctx context.Context, k int, url string) ([]string, error) {
	v := store.Visibility{OrgID: e.orgID}
	page, err := e.store.Webhooks(ctx, v, workshop.PageRequest{Limit: workshop.MaxPageLimit})
	for err == nil {
		no := false
		for _, w := range page.Data {
			if w.IsActive {
				if _, err := e.store.PatchWebhook(ctx, v, w.ID, store.WebhookPatch{IsActive: &no}, workshop.MicrosOf(time.Now())); err != nil {
					return nil, err
				}
			}
		}
		if page.NextCursor == nil {
			break
		}
		p, _ := workshop.ParsePageRequest(nil, *page.NextCursor)
		page, err = e.store.Webhooks(ctx, v, p)
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for i := range k {
		path := fmt.Sprintf("%s/%d", url, i)
		now := workshop.MicrosOf(time.Now())
		if _, err := e.store.CreateWebhook(ctx, workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: e.orgID, URL: path,
			Events: []string{workshop.EventJobCreated}, SigningSecret: workshop.NewSigningSecret(), IsActive: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// catchUp fans the outbox out (unmeasured), so a round starts from an
// outbox with nothing left behind.
func (e *env) catchUp(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		has, err := e.store.HasEventsToFanOut(ctx)
		if err != nil || !has {
			return err
		}
		if _, _, err := e.store.FanOut(ctx, 1000); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("the outbox was not fanned out within 2 minutes")
		}
	}
}

// dispatch runs a dispatcher on the bench's store until the returned stop.
func (e *env) dispatch(cfg webhooks.Config) (stop func()) {
	cfg.Guard = &webhooks.Guard{AllowInsecure: true} // a loopback receiver
	// Stopped as serve stops: attempts in flight are finished and recorded,
	// not left to their leases for the next scenario's dispatcher.
	cfg.ShutdownGrace = 10 * time.Second
	d := webhooks.New(e.store, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	return func() { cancel(); <-done }
}

// drained waits until no delivery is left to make.
func (e *env) drained(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		has, err := e.store.HasEventsToFanOut(ctx)
		if err != nil {
			return err
		}
		b, err := e.store.Backlog(ctx)
		if err != nil {
			return err
		}
		if !has && b.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d deliveries still pending after %s", b.Pending, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func report(lines ...string) Figure { return Figure{Kind: "report", Lines: lines} }

func webhookThroughput(ctx context.Context, e *env, cfg Config) (Figure, error) {
	const events, registrations = 10_000, 4
	rcv, err := startHookReceiver(0)
	if err != nil {
		return Figure{}, err
	}
	defer rcv.stop()
	f := report("round\tdeliveries\tseconds\tdeliveries/s")
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(round int) (float64, error) {
		if err := e.catchUp(ctx); err != nil {
			return 0, err
		}
		paths, err := e.hooks(ctx, registrations, fmt.Sprintf("%s/tp%d", rcv.base, round))
		if err != nil {
			return 0, err
		}
		if _, err := e.seedJobs(ctx, events, 0); err != nil {
			return 0, err
		}
		start := time.Now()
		stop := e.dispatch(webhooks.Config{})
		defer stop()
		for i := range paths {
			if err := rcv.waitCount(ctx, fmt.Sprintf("/tp%d/%d", round, i), events, 5*time.Minute); err != nil {
				return 0, err
			}
		}
		el := time.Since(start)
		rate := float64(events*registrations) / el.Seconds()
		f.Rounds = append(f.Rounds, Round{TargetRPS: rate})
		f.Lines = append(f.Lines, fmt.Sprintf("%d\t%d\t%.2f\t%.0f", round+1, events*registrations, el.Seconds(), rate))
		return rate, nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	f.Lines = append(f.Lines, fmt.Sprintf("webhook_throughput on %s: median %.0f deliveries/s (min %.0f, max %.0f)", e.store.Dialect(), median, lo, hi))
	return f, err
}

func webhookSlowReceiver(ctx context.Context, e *env, cfg Config) (Figure, error) {
	const registrations, answer = 16, 20 * time.Millisecond
	rcv, err := startReceiver(ctx, cfg.ReceiverCommand, answer)
	if err != nil {
		return Figure{}, err
	}
	defer rcv.stop()
	f := report("workers\tround\tdeliveries\tdeliveries/s\tideal/s\tof ideal")
	var ratios []float64
	n := 0
	for _, workers := range []int{8, 16, 32, 64} {
		ideal := float64(workers) / answer.Seconds()
		events := int(math.Ceil(ideal * 4 / registrations)) // about 4 s of work: start and end weigh little
		var rates []float64
		for round := range cfg.Rounds {
			n++
			if err := e.catchUp(ctx); err != nil {
				return f, err
			}
			prefix := fmt.Sprintf("/slow%d", n)
			if _, err := e.hooks(ctx, registrations, rcv.base+prefix); err != nil {
				return f, err
			}
			if _, err := e.seedJobs(ctx, events, 0); err != nil {
				return f, err
			}
			start := time.Now()
			stop := e.dispatch(webhooks.Config{Workers: workers, PerWebhook: 4})
			for i := range registrations {
				if err := rcv.waitCount(ctx, fmt.Sprintf("%s/%d", prefix, i), int64(events), 5*time.Minute); err != nil {
					stop()
					return f, err
				}
			}
			el := time.Since(start)
			stop()
			rate := float64(events*registrations) / el.Seconds()
			rates = append(rates, rate)
			f.Lines = append(f.Lines, fmt.Sprintf("%d\t%d\t%d\t%.0f\t%.0f\t%.2f", workers, round+1, events*registrations, rate, ideal, rate/ideal))
		}
		slices.Sort(rates)
		med := rates[len(rates)/2]
		ratios = append(ratios, med/ideal)
		f.Rounds = append(f.Rounds, Round{TargetRPS: med, Ratio: med / ideal})
		f.Lines = append(f.Lines, fmt.Sprintf("%d workers: median %.0f deliveries/s = %.2f of the ideal %.0f/s", workers, med, med/ideal, ideal))
	}
	slices.Sort(ratios)
	f.Median, f.Min, f.Max = ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1]
	return f, nil
}

func webhookLatency(ctx context.Context, e *env, cfg Config) (Figure, error) {
	const rate = 1000.0
	rcv, err := startHookReceiver(0)
	if err != nil {
		return Figure{}, err
	}
	defer rcv.stop()
	f := report("round\tevents\tevents/s\tp50 ms\tp99 ms\tmax ms\tundelivered\tfrom tx start: p50 ms\tp99 ms")
	var locs []string
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(round int) (float64, error) {
		if err := e.catchUp(ctx); err != nil {
			return 0, err
		}
		if _, err := e.hooks(ctx, 1, fmt.Sprintf("%s/lat%d", rcv.base, round)); err != nil {
			return 0, err
		}
		stop := e.dispatch(webhooks.Config{})
		defer stop()
		rcv.mu.Lock()
		clear(rcv.arrivals)
		rcv.mu.Unlock()
		rcv.track.Store(true)
		defer rcv.track.Store(false)

		// Jobs of 8 locations: job numbers are counted per location, and
		// one location's counter would serialise the writers on PostgreSQL.
		if len(locs) == 0 {
			for i := range 8 {
				l, err := e.op.CreateLocation(ctx, e.orgID, fmt.Sprintf("Latency site %d", i), "Europe/Berlin", "EUR")
				if err != nil {
					return 0, err
				}
				locs = append(locs, l.ID)
			}
		}
		total := int((cfg.Warmup + cfg.Duration).Seconds() * rate)
		warm := int(cfg.Warmup.Seconds() * rate)
		begins, commits := make([]time.Time, total), make([]time.Time, total)
		ids := make([]string, total)
		var writeErr atomic.Value
		jobs := make(chan int, 1024)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range jobs {
					at := time.Now()
					now := workshop.MicrosOf(at)
					res, err := e.store.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: e.orgID, LocationID: locs[i%len(locs)],
						Priority: "normal", Source: "dms", CreatedAt: now, UpdatedAt: now}, true)
					if err != nil {
						writeErr.Store(err)
						continue
					}
					begins[i], commits[i], ids[i] = at, time.Now(), res.Job.ID
				}
			})
		}
		start := time.Now()
		for i := range total {
			if d := time.Until(start.Add(time.Duration(float64(i) / rate * float64(time.Second)))); d > 0 {
				time.Sleep(d)
			}
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		written := time.Since(start)
		if err, ok := writeErr.Load().(error); ok {
			return 0, err
		}
		if err := e.drained(ctx, time.Minute); err != nil {
			return 0, err
		}
		rcv.mu.Lock()
		var lat, fromBegin []time.Duration
		undelivered := 0
		for i := warm; i < total; i++ {
			a, ok := rcv.arrivals[ids[i]]
			if !ok {
				undelivered++
				continue
			}
			lat, fromBegin = append(lat, a.Sub(commits[i])), append(fromBegin, a.Sub(begins[i]))
		}
		rcv.mu.Unlock()
		if len(lat) == 0 {
			return 0, errors.New("no delivery arrived")
		}
		slices.Sort(lat)
		slices.Sort(fromBegin)
		p := func(l []time.Duration, q float64) float64 {
			return ms(l[min(len(l)-1, int(math.Ceil(q*float64(len(l))))-1)])
		}
		r := Round{TargetRPS: float64(total) / written.Seconds(), P50ms: p(lat, 0.50), P99ms: p(lat, 0.99), Missed: int64(undelivered)}
		f.Rounds = append(f.Rounds, r)
		f.Lines = append(f.Lines, fmt.Sprintf("%d\t%d\t%.0f\t%.2f\t%.2f\t%.2f\t%d\t%.2f\t%.2f", round+1, total-warm, r.TargetRPS, r.P50ms, r.P99ms,
			ms(lat[len(lat)-1]), undelivered, p(fromBegin, 0.50), p(fromBegin, 0.99)))
		return r.P99ms, nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	p50s := make([]float64, 0, len(f.Rounds))
	for _, r := range f.Rounds {
		p50s = append(p50s, r.P50ms)
	}
	slices.Sort(p50s)
	if len(p50s) > 0 {
		f.Lines = append(f.Lines, fmt.Sprintf("webhook_latency on %s at %.0f events/s: p50 median %.2f ms, p99 median %.2f ms (min %.2f, max %.2f)",
			e.store.Dialect(), rate, p50s[len(p50s)/2], median, lo, hi))
	}
	return f, err
}

func webhookJobOverhead(ctx context.Context, e *env, cfg Config) (Figure, error) {
	rcv, err := startHookReceiver(0)
	if err != nil {
		return Figure{}, err
	}
	defer rcv.stop()
	f := report("round\twithout jobs/s\twith jobs/s\twith/without\tdelivered when the load stopped")
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(round int) (float64, error) {
		// Without: no dispatcher, no active registration. With: the outbox
		// caught up first (unmeasured), one registration, the dispatcher
		// delivering as the jobs are made. The order alternates between
		// rounds, so that a drift over the run favours neither.
		runWithout := func() (loadgen.Result, error) {
			if _, err := e.hooks(ctx, 0, ""); err != nil {
				return loadgen.Result{}, err
			}
			if err := e.catchUp(ctx); err != nil {
				return loadgen.Result{}, err
			}
			return closed(cfg).Run(ctx, e.createJob())
		}
		path := fmt.Sprintf("/ovh%d", round)
		var deliveredDuring int64
		runWith := func() (loadgen.Result, error) {
			if err := e.catchUp(ctx); err != nil {
				return loadgen.Result{}, err
			}
			if _, err := e.hooks(ctx, 1, rcv.base+path); err != nil {
				return loadgen.Result{}, err
			}
			stop := e.dispatch(webhooks.Config{})
			defer stop()
			res, err := closed(cfg).Run(ctx, e.createJob())
			deliveredDuring = rcv.counter(path + "/0").Load()
			if err == nil {
				err = e.drained(ctx, 2*time.Minute)
			}
			return res, err
		}
		var with, without loadgen.Result
		var err error
		if round%2 == 0 {
			if without, err = runWithout(); err == nil {
				with, err = runWith()
			}
		} else {
			if with, err = runWith(); err == nil {
				without, err = runWithout()
			}
		}
		if err != nil {
			return 0, err
		}
		for _, r := range []loadgen.Result{with, without} {
			if r.Errors > 0 {
				return 0, fmt.Errorf("%d requests failed; first: %s", r.Errors, r.FirstError)
			}
		}
		ratio := with.Throughput / without.Throughput
		f.Rounds = append(f.Rounds, Round{ControlRPS: without.Throughput, TargetRPS: with.Throughput, Ratio: ratio, P50ms: ms(with.P50), P99ms: ms(with.P99)})
		f.Lines = append(f.Lines, fmt.Sprintf("%d\t%.0f\t%.0f\t%.3f\t%d", round+1, without.Throughput, with.Throughput, ratio, deliveredDuring))
		return ratio, nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	f.Lines = append(f.Lines, fmt.Sprintf("webhook_job_overhead on %s: with/without median %.3f (min %.3f, max %.3f)", e.store.Dialect(), median, lo, hi))
	return f, err
}
