// Package loadgen is a small HTTP load generator used by `workshop bench` to
// measure an HTTP service on loopback.
//
// It offers two ways to apply load, because they answer different questions:
//
//   - ClosedLoop: a fixed number of connections each send the next request as
//     soon as the previous one is answered. This measures the maximum
//     throughput (e.g. "endpoint X as a ratio of ControlHandler"), but its
//     latencies are optimistic: a slow server also slows the load down.
//   - OpenLoop: requests are sent on a fixed schedule whatever the server
//     does, and latency is measured from the scheduled send time. This is the
//     honest way to report tail latency at a given rate, because a stall
//     shows up in every request that should have been sent during it
//     (no "coordinated omission").
//
// Every latency of the measured window is kept and percentiles are computed
// exactly from the sorted sample (8 bytes per request: a few million samples
// are a few tens of MB). Every run is bounded in time: Warmup + Duration plus
// at most drainTimeout for requests still in flight.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request builds the i-th request (i counts from 0 across the whole run,
// warmup included). It must be safe for concurrent use.
//
// The context of the returned request is replaced by the run's context, so
// that cancellation and the end-of-run drain deadline apply to every request.
type Request func(i int64) (*http.Request, error)

// Result of one run. Only the measured window counts: requests of the warmup
// are sent but not recorded.
type Result struct {
	Requests   int64         // completed requests (any status)
	Errors     int64         // transport errors + responses whose status was not accepted
	Duration   time.Duration // wall time of the measured part
	Throughput float64       // successful (accepted) requests per second
	// Latency percentiles (nearest rank) over every completed request,
	// whatever its status. Transport errors have no latency: they are only
	// counted in Errors.
	P50, P90, P99, Max time.Duration
	Statuses           map[int]int64 // count per status code
	FirstError         string        // first error or unexpected status, with a short body excerpt, for diagnostics
	// Missed (OpenLoop only) counts requests scheduled in the measured window
	// that could not start before the window ended because MaxInFlight
	// requests were in flight. Missed > 0 means the target did not sustain
	// the rate; the latencies above then understate what a client would see.
	Missed int64
}

// ClosedLoop: Connections workers each send requests back to back for
// Duration (after Warmup, not measured).
//
// A request is recorded if it completes inside the measured window; its
// latency runs from its own send time. Requests still in flight when the
// window ends are allowed to finish (so the server is not flooded with
// aborted connections) but are not recorded.
type ClosedLoop struct {
	Client           *http.Client // nil: a client built for Connections (MaxIdleConnsPerHost = Connections, no compression)
	Connections      int
	Duration, Warmup time.Duration
	Accept           func(status int) bool // nil: 2xx
}

// OpenLoop: requests are scheduled at a fixed Rate per second for Duration
// regardless of how fast the server answers; latency of each request is
// measured from its SCHEDULED send time (so coordinated omission is not
// hidden). MaxInFlight bounds concurrency (default 1024); a request that
// cannot start because MaxInFlight are in flight is still counted from its
// scheduled time when it does start (its latency then includes the wait).
//
// A request is recorded if it was scheduled inside the measured window. No
// request starts after the window ends: those still waiting are reported in
// Result.Missed. Requests in flight at the end are waited for (up to
// drainTimeout, after which they count as errors), and Duration then runs
// until the last of them completes.
type OpenLoop struct {
	Client           *http.Client // nil: a client built for MaxInFlight connections, no compression
	Rate             float64      // requests per second, > 0
	Duration, Warmup time.Duration
	MaxInFlight      int                   // <= 0: 1024
	Accept           func(status int) bool // nil: 2xx
}

const (
	// drainTimeout bounds how long a run waits, after its window, for the
	// requests still in flight; it keeps every run bounded in time.
	drainTimeout = 5 * time.Second
	// excerptLen is how much of an unexpected response body goes into
	// FirstError: enough to recognise an error message, short enough to log.
	excerptLen         = 256
	defaultMaxInFlight = 1024
)

// errDrain is the cancellation cause of requests still in flight when the
// drain period ends; they are failures of the target, not aborts of the run.
var errDrain = errors.New("still in flight at the end of the drain period")

// Run applies the load and returns the measurement. If ctx is cancelled the
// partial result is returned with ctx's error; a Request that fails to build
// a request aborts the run with that error (a broken request builder would
// make the figures meaningless).
func (c ClosedLoop) Run(ctx context.Context, req Request) (Result, error) {
	if err := validate(req, c.Duration, c.Warmup); err != nil {
		return Result{}, err
	}
	if c.Connections <= 0 {
		return Result{}, errors.New("loadgen: Connections must be > 0")
	}
	r, cleanup := newRunner(ctx, c.Client, c.Connections, c.Accept, req)
	defer cleanup()

	start := time.Now()
	ws := start.Add(c.Warmup)
	we := ws.Add(c.Duration)
	drain := time.AfterFunc(time.Until(we)+drainTimeout, func() { r.cancel(errDrain) })
	defer drain.Stop()

	var next atomic.Int64 // shared so that i is unique across workers
	recs := make([]*recorder, c.Connections)
	var wg sync.WaitGroup
	for w := range recs {
		rec := newRecorder()
		recs[w] = rec
		wg.Go(func() {
			for r.ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(we) {
					return
				}
				i := next.Add(1) - 1
				status, excerpt, err := r.exchange(i)
				t1 := time.Now()
				// Outside the window: warmup, or the tail that completes after
				// the end (the loop condition then stops the worker).
				if t1.Before(ws) || !t1.Before(we) {
					continue
				}
				if err != nil {
					if r.aborted() {
						return
					}
					rec.errors++
					r.note(fmt.Sprintf("request %d: %v", i, err))
					continue
				}
				ok := r.accept(status)
				rec.response(status, ok, t1.Sub(t0), t1)
				if !ok {
					r.note(fmt.Sprintf("request %d: status %d: %q", i, status, excerpt))
				}
			}
		})
	}
	wg.Wait()

	end := we
	if ctx.Err() != nil {
		end = minTime(time.Now(), we)
	}
	return r.finish(ctx, recs, end.Sub(ws), 0)
}

// Run applies the load and returns the measurement; see ClosedLoop.Run for
// cancellation and errors.
func (o OpenLoop) Run(ctx context.Context, req Request) (Result, error) {
	if err := validate(req, o.Duration, o.Warmup); err != nil {
		return Result{}, err
	}
	if !(o.Rate > 0) || math.IsInf(o.Rate, 0) {
		return Result{}, fmt.Errorf("loadgen: Rate must be a positive finite number, got %v", o.Rate)
	}
	maxInFlight := o.MaxInFlight
	if maxInFlight <= 0 {
		maxInFlight = defaultMaxInFlight
	}
	r, cleanup := newRunner(ctx, o.Client, maxInFlight, o.Accept, req)
	defer cleanup()

	// offset is the scheduled send time of request i relative to the start.
	// Computed from i (not by adding intervals) so that rounding does not
	// accumulate and a late scheduler catches up instead of drifting.
	offset := func(i int64) time.Duration {
		return time.Duration(float64(i) / o.Rate * float64(time.Second))
	}
	// firstAtOrAfter is the smallest i whose scheduled offset is >= d.
	firstAtOrAfter := func(d time.Duration) int64 {
		k := int64(math.Ceil(d.Seconds() * o.Rate))
		for k > 0 && offset(k-1) >= d {
			k--
		}
		for offset(k) < d {
			k++
		}
		return k
	}

	type job struct {
		i        int64
		sched    time.Time
		measured bool
	}
	// Unbuffered: a send succeeds only when one of the maxInFlight workers is
	// idle, which is exactly the MaxInFlight bound; while all are busy the
	// scheduler waits and the waiting time ends up in the latency.
	jobs := make(chan job)
	recs := make([]*recorder, maxInFlight)
	var wg sync.WaitGroup
	for w := range recs {
		rec := newRecorder()
		recs[w] = rec
		wg.Go(func() {
			for j := range jobs {
				status, excerpt, err := r.exchange(j.i)
				t1 := time.Now()
				if !j.measured {
					continue
				}
				if err != nil {
					if r.aborted() {
						continue
					}
					rec.errors++
					rec.lastEnd = maxTime(rec.lastEnd, t1)
					r.note(fmt.Sprintf("request %d: %v", j.i, err))
					continue
				}
				ok := r.accept(status)
				rec.response(status, ok, t1.Sub(j.sched), t1)
				if !ok {
					r.note(fmt.Sprintf("request %d: status %d: %q", j.i, status, excerpt))
				}
			}
		})
	}

	start := time.Now()
	ws := start.Add(o.Warmup)
	we := ws.Add(o.Duration)
	window, endWindow := context.WithDeadline(r.ctx, we)
	defer endWindow()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	var i int64
schedule:
	for ; ; i++ {
		t := start.Add(offset(i))
		if !t.Before(we) {
			break
		}
		if d := time.Until(t); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-window.Done():
				break schedule
			}
		}
		// When behind schedule the select below may find both cases ready;
		// this check makes sure no request starts after the window.
		if window.Err() != nil {
			break
		}
		select {
		case jobs <- job{i: i, sched: t, measured: !t.Before(ws)}:
		case <-window.Done():
			break schedule
		}
	}
	var missed int64
	if r.ctx.Err() == nil {
		missed = max(0, firstAtOrAfter(o.Warmup+o.Duration)-max(i, firstAtOrAfter(o.Warmup)))
	}
	close(jobs)
	drain := time.AfterFunc(time.Until(we)+drainTimeout, func() { r.cancel(errDrain) })
	wg.Wait()
	drain.Stop()

	end := we
	for _, rec := range recs {
		end = maxTime(end, rec.lastEnd)
	}
	if ctx.Err() != nil {
		end = time.Now()
	}
	return r.finish(ctx, recs, max(0, end.Sub(ws)), missed)
}

func validate(req Request, duration, warmup time.Duration) error {
	switch {
	case req == nil:
		return errors.New("loadgen: nil Request")
	case duration <= 0:
		return errors.New("loadgen: Duration must be > 0")
	case warmup < 0:
		return errors.New("loadgen: Warmup must be >= 0")
	}
	return nil
}

// runner holds what the workers of one run share.
type runner struct {
	client *http.Client
	build  Request
	accept func(int) bool
	ctx    context.Context // the run's context: parent ctx, fatal error or drain end
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	first string // first error, for Result.FirstError
	fatal error  // error that aborted the run, returned by Run
}

func newRunner(parent context.Context, client *http.Client, conns int, accept func(int) bool, build Request) (*runner, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	r := &runner{client: client, build: build, accept: accept, ctx: ctx, cancel: cancel}
	if r.accept == nil {
		r.accept = func(s int) bool { return s >= 200 && s < 300 }
	}
	var tr *http.Transport
	if r.client == nil {
		tr = newTransport(conns)
		r.client = &http.Client{Transport: tr}
	}
	return r, func() {
		cancel(nil)
		if tr != nil {
			// Our own client: do not leave its keep-alive connections (and
			// their goroutines) behind once the run is over.
			tr.CloseIdleConnections()
		}
	}
}

// newTransport is a transport sized so that every worker keeps its own
// keep-alive connection (otherwise the default of 2 idle connections per host
// would make most requests dial, and we would measure connection setup).
// Compression is off because it would measure gzip rather than the service;
// no proxy, since the target is on loopback.
func newTransport(conns int) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext:           d.DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// exchange sends request i and reads the response body fully (so that the
// connection is reused). It returns the status, and for a status that is not
// accepted the beginning of the body; err is a transport or body error.
func (r *runner) exchange(i int64) (status int, excerpt string, err error) {
	req, err := r.build(i)
	if err == nil && req == nil {
		err = errors.New("nil request")
	}
	if err != nil {
		err = fmt.Errorf("loadgen: building request %d: %w", i, err)
		r.abort(err)
		return 0, "", err
	}
	resp, err := r.client.Do(req.WithContext(r.ctx))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if !r.accept(resp.StatusCode) {
		buf := make([]byte, excerptLen) // error path only
		n, err := io.ReadFull(resp.Body, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return 0, "", err
		}
		excerpt = strings.ToValidUTF8(string(buf[:n]), "?")
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, "", err
	}
	return resp.StatusCode, excerpt, nil
}

// abort stops the run because of err; the first such error is kept.
func (r *runner) abort(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
	r.cancel(err)
}

// aborted reports whether the run was stopped by the caller or a fatal error,
// in which case a failed request says nothing about the target and is not
// counted. Requests cut by the drain deadline are the target's failures.
func (r *runner) aborted() bool {
	return r.ctx.Err() != nil && !errors.Is(context.Cause(r.ctx), errDrain)
}

func (r *runner) note(msg string) {
	r.mu.Lock()
	if r.first == "" {
		r.first = msg
	}
	r.mu.Unlock()
}

// finish merges the workers' recorders into a Result.
func (r *runner) finish(ctx context.Context, recs []*recorder, dur time.Duration, missed int64) (Result, error) {
	res := Result{Duration: dur, Statuses: map[int]int64{}, Missed: missed}
	var lat []time.Duration
	var accepted int64
	for _, rec := range recs {
		lat = append(lat, rec.lat...)
		accepted += rec.accepted
		res.Errors += rec.errors
		for s, n := range rec.statuses {
			res.Statuses[s] += n
			res.Requests += n
		}
	}
	if dur > 0 {
		res.Throughput = float64(accepted) / dur.Seconds()
	}
	slices.Sort(lat)
	res.P50 = percentile(lat, 0.50)
	res.P90 = percentile(lat, 0.90)
	res.P99 = percentile(lat, 0.99)
	res.Max = percentile(lat, 1)

	r.mu.Lock()
	res.FirstError = r.first
	fatal := r.fatal
	r.mu.Unlock()
	if fatal != nil {
		return res, fatal
	}
	return res, ctx.Err()
}

// percentile is the nearest-rank percentile (p in (0, 1]) of a sorted sample.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// recorder is owned by a single worker, so recording takes no lock.
type recorder struct {
	lat      []time.Duration
	statuses map[int]int64
	accepted int64
	errors   int64
	lastEnd  time.Time // completion of the last recorded request
}

func newRecorder() *recorder { return &recorder{statuses: map[int]int64{}} }

func (rec *recorder) response(status int, accepted bool, lat time.Duration, end time.Time) {
	rec.lat = append(rec.lat, lat)
	rec.statuses[status]++
	if accepted {
		rec.accepted++
	} else {
		rec.errors++
	}
	rec.lastEnd = maxTime(rec.lastEnd, end)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// controlBody is the ControlHandler's response: 600 bytes of valid JSON,
// built once so that serving it allocates nothing.
var controlBody = func() []byte {
	const head = `{"status":"ok","service":"control","note":"loadgen reference response","padding":"`
	const tail = `"}`
	return []byte(head + strings.Repeat("x", 600-len(head)-len(tail)) + tail)
}()

// Header values shared by every response. net/http only reads them, and
// Header.Add would append into a new array (len == cap), so sharing is safe.
var (
	controlContentType   = []string{"application/json"}
	controlContentLength = []string{fmt.Sprint(len(controlBody))}
)

// ControlHandler is the reference "ceiling": a plain net/http handler writing
// a fixed 600-byte JSON body (exactly 600 bytes, Content-Type
// application/json), no allocations per request beyond what net/http does.
// A service endpoint's throughput divided by this one's, on the same machine
// and load, factors out the machine and net/http itself.
func ControlHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = controlContentType
		h["Content-Length"] = controlContentLength
		_, _ = w.Write(controlBody)
	})
}

// Rounds runs f n times and returns the median, min and max of the values it
// returns (used for "5 rounds" figures). The median of an even count is the
// mean of the two middle values. It stops at the first error.
func Rounds(n int, f func(round int) (float64, error)) (median, min, max float64, err error) {
	if n <= 0 {
		return 0, 0, 0, fmt.Errorf("loadgen: Rounds needs n > 0, got %d", n)
	}
	vals := make([]float64, 0, n)
	for round := range n {
		v, err := f(round)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("loadgen: round %d: %w", round, err)
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	if n%2 == 1 {
		median = vals[n/2]
	} else {
		median = (vals[n/2-1] + vals[n/2]) / 2
	}
	return median, vals[0], vals[n-1], nil
}
