package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The promise watch at dealer-group scale (issue 30): N locations of 5
// technicians, 3 bays and 20 open jobs of 3 steps (half of them promised
// within hours, some of those at risk) on one database, watched
// by one and then two `workshop serve` processes. It measures the serve
// processes' CPU at rest, then sends waves of one change in every location
// (a job's promise moved into the past, so that it turns at risk) in the
// middle of a minute and at the minute's turn, and reads the job.at_risk
// events from the outbox: latency from the change's commit to the event's
// occurred_at, the share within 10 s, duplicates and losses. With two
// processes one is also killed (SIGKILL) during a wave. First it measures
// a plan's own CPU cost at 20 and 80 jobs with the search budget of 80 x 4
// and with the budget scaled to the plan's size.

func init() {
	scenarios["promise_watch_scale"] = scenario{
		description: "promise watch at scale: serve CPU at rest, at_risk latency after a change in every location, 1 and 2 processes (--locations N, --duration = the idle window)",
		custom:      promiseWatchScale,
	}
}

// watchFixture is one location's size.
const (
	watchTechs, watchBays, watchJobs, watchSteps = 5, 3, 20, 3
	watchWaveJobs                                = watchJobs / 2    // the jobs the waves turn, one each
	watchSeeders                                 = 8                // concurrent seeding and wave writers
	watchWaveTimeout                             = 90 * time.Second // a wave's events are awaited this long
	watchStartup                                 = 5 * time.Second  // left out of the CPU at rest
	watchWaveSome                                = 100              // the locations of the smaller waves
	watchSingles                                 = 20               // single changes, one after another
)

func promiseWatchScale(ctx context.Context, e *env, cfg Config) (Figure, error) {
	n := cfg.Locations
	if n <= 0 {
		n = 100
	}
	if len(cfg.ServeCommand) == 0 {
		return Figure{}, errors.New("promise_watch_scale needs the serve command (workshop bench sets it)")
	}
	f := Figure{Kind: "report"}
	f.Lines = append(f.Lines, planCostLines()...)
	dbURL, drop, err := scratchDatabase(ctx, cfg.DatabaseURL, "workshop-watch-bench")
	if err != nil {
		return f, err
	}
	defer drop()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return f, err
	}
	defer st.Close()
	began := time.Now()
	locs, err := seedWatchLocations(ctx, st, n)
	if err != nil {
		return f, err
	}
	f.Lines = append(f.Lines, fmt.Sprintf("seeded %d locations x (%d techs, %d bays, %d open jobs of %d steps) on %s in %s",
		n, watchTechs, watchBays, watchJobs, watchSteps, st.Dialect(), time.Since(began).Round(time.Second)))
	p := &ports{r: cfg.Ports}
	rcv, err := startRiskReceiver(p)
	if err != nil {
		return f, err
	}
	defer rcv.stop()
	if err := registerRiskHook(ctx, st, locs[0].loc.OrgID, rcv.url); err != nil {
		return f, err
	}
	tr := &riskTracker{atRisk: map[string]bool{}, changed: map[string]bool{}}
	procs := cfg.Processes
	if len(procs) == 0 {
		procs = []int{1, 2}
	}
	for _, n := range procs {
		run := watchRunner{st: st, dbURL: dbURL, serve: cfg.ServeCommand, locs: locs, procs: n, idle: cfg.Duration, opening: cfg.Opening,
			tr: tr, rcv: rcv, ports: p}
		lines, err := run.run(ctx)
		f.Lines = append(f.Lines, lines...)
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// watchRunner is one run of the scenario with procs serve processes.
type watchRunner struct {
	st            *store.Store
	dbURL         string
	serve         []string
	locs          []watchLocation
	procs         int
	idle, opening time.Duration
	tr            *riskTracker
	rcv           *riskReceiver
	ports         *ports
	lines         []string
	pending       map[string]time.Time // changes whose delivery had not arrived at the end of their wave
}

func (w *watchRunner) say(format string, args ...any) {
	w.lines = append(w.lines, fmt.Sprintf("%d process(es): ", w.procs)+fmt.Sprintf(format, args...))
}

// run starts the serve processes, lets them settle, sends single changes
// and waves (a change in 100 sites, then in every site, mid-minute and at
// the minute's turn), with two processes a wave during which one is killed
// (and then replaced), measures the CPU of every minute at rest after the
// waves (when a herd of looks by time alone would come back), then the
// minutes of every location opening and, 3 minutes later, ending its
// working period; it stops the processes before it returns.
func (w *watchRunner) run(ctx context.Context) ([]string, error) {
	w.pending = map[string]time.Time{}
	ps, err := startServers(ctx, w.serve, w.dbURL, w.procs, w.ports)
	defer func() { stopServers(ps) }()
	if err != nil {
		return w.lines, err
	}
	settled := time.Now()
	if err := waitSettled(ctx, w.st); err != nil {
		return w.lines, err
	}
	w.say("first look at every location took %s", time.Since(settled).Round(100*time.Millisecond))
	if err := sleepCtx(ctx, watchStartup); err != nil { // the processes' start is not rest
		return w.lines, err
	}
	if err := w.tr.catchUp(ctx, w.st); err != nil {
		return w.lines, err
	}
	r, err := singleChanges(ctx, w.st, w.tr, w.rcv, w.locs, watchSingles)
	if err != nil {
		return w.lines, err
	}
	w.keep(r)
	w.say("one location changed at a time, %d times: %s", watchSingles, r)
	type wave struct {
		at   string
		locs []watchLocation
	}
	waves := []wave{{"mid-minute", w.locs}, {"minute turn", w.locs}}
	if some := spread(w.locs, watchWaveSome); len(some) < len(w.locs) {
		waves = append([]wave{{"mid-minute", some}, {"minute turn", some}}, waves...)
	}
	for _, wv := range waves {
		if err := waitMinuteSecond(ctx, map[string]float64{"mid-minute": 30, "minute turn": 59.7}[wv.at]); err != nil {
			return w.lines, err
		}
		r, err := sendWave(ctx, w.st, w.tr, w.rcv, wv.locs, nil)
		if err != nil {
			return w.lines, err
		}
		w.keep(r)
		w.say("%d locations changed at the %s: %s", len(wv.locs), wv.at, r)
	}
	if w.procs == 2 {
		kill := func() { _ = ps[1].Process.Kill() }
		r, err := sendWave(ctx, w.st, w.tr, w.rcv, w.locs, kill)
		if err != nil {
			return w.lines, err
		}
		w.keep(r)
		w.say("%d locations changed, one process killed (SIGKILL) 1 s into the wave: %s", len(w.locs), r)
		_ = ps[1].Wait()
		again, err := startServers(ctx, w.serve, w.dbURL, 1, w.ports)
		if err != nil {
			return w.lines, err
		}
		ps[1] = again[0]
		if err := sleepCtx(ctx, watchStartup); err != nil {
			return w.lines, err
		}
	}
	late, lost, err := lostAfter(ctx, w.rcv, w.pending, 2*time.Minute)
	if err != nil {
		return w.lines, err
	}
	w.say("changes whose delivery had not arrived at the end of their wave: %d; arrived later %d (latencies %v); lost (not arrived 2 min after) %d",
		len(w.pending), len(late), roundAll(late), lost)
	if w.idle > 0 {
		cpu, err := minuteCPU(ctx, ps, w.idle)
		if err != nil {
			return w.lines, err
		}
		w.say("serve CPU at rest after the waves, every minute of %s: %s", w.idle, cpu)
	}
	if w.opening > 0 {
		if err := w.openingMinutes(ctx, ps); err != nil {
			return w.lines, err
		}
	}
	return w.lines, nil
}

// keep notes a wave's changes not arrived yet.
func (w *watchRunner) keep(r waveResult) {
	for j, at := range r.pending {
		w.pending[j] = at
	}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Millisecond)
	}
	return out
}

// openingMinutes sets every location to open at the start of a minute 3
// minutes from now (local time) and to close 3 minutes later, and
// measures the serve processes' CPU in every minute from the opening over
// the opening window: the looks at the opening, then at the period's end,
// each spread by its location's offset.
func (w *watchRunner) openingMinutes(ctx context.Context, ps []*exec.Cmd) error {
	zone, err := time.LoadLocation(w.locs[0].loc.Timezone)
	if err != nil {
		return err
	}
	opening := time.Now().Truncate(time.Minute).Add(3 * time.Minute)
	local := opening.In(zone)
	if local.Hour() >= 23 || local.Hour() == 0 {
		w.say("opening minute not measured: the locations' day ends before it")
		return nil
	}
	hhmm := func(t time.Time) string { return t.In(zone).Format("15:04") }
	settings := workshop.DefaultSettings()
	settings.OperatingHours, settings.Breaks = nil, []workshop.Break{}
	for _, d := range workshop.Weekdays {
		settings.OperatingHours = append(settings.OperatingHours, workshop.OpeningHours{Day: d, Open: hhmm(opening), Close: hhmm(opening.Add(3 * time.Minute))})
	}
	next := make(chan watchLocation)
	errs := make(chan error, watchSeeders)
	var wg sync.WaitGroup
	for range watchSeeders {
		wg.Go(func() {
			for wl := range next {
				if err := w.st.SetSettings(ctx, wl.loc.ID, settings); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for _, wl := range w.locs {
		next <- wl
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if err := sleepCtx(ctx, time.Until(opening)); err != nil {
		return err
	}
	cpu, err := minuteCPU(ctx, ps, w.opening)
	if err != nil {
		return err
	}
	w.say("every location opening at %s local and ending its period at %s: serve CPU in every minute from the opening: %s",
		hhmm(opening), hhmm(opening.Add(3*time.Minute)), cpu)
	return nil
}

// spread is n of locs, evenly spread (all of them when there are fewer).
func spread(locs []watchLocation, n int) []watchLocation {
	if len(locs) <= n {
		return locs
	}
	out := make([]watchLocation, n)
	for i := range out {
		out[i] = locs[i*len(locs)/n]
	}
	return out
}

// singleChanges changes one location at a time, n times, each once the
// one before was told (issue 30: a single change shows within 2 s).
func singleChanges(ctx context.Context, st *store.Store, tr *riskTracker, rcv *riskReceiver, locs []watchLocation, n int) (waveResult, error) {
	var all waveResult
	for _, wl := range spread(locs, n) {
		if err := sleepCtx(ctx, 1300*time.Millisecond); err != nil { // at another phase of the watch's tick each time
			return all, err
		}
		r, err := sendWave(ctx, st, tr, rcv, []watchLocation{wl}, nil)
		if err != nil {
			return all, err
		}
		all.add(r)
	}
	return all, nil
}

// planCostLines measures a plan's CPU time at 20 jobs (the fixture's size)
// and 80 x 4 (the contract's), with the search budget of 80 x 4 for every
// size (before issue 30) and with the budget scaled to the size.
func planCostLines() []string {
	twenty := workshopClass("20x3", watchJobs, watchSteps, watchTechs, watchBays)
	eighty := workshopClass("80x4", 80, 4, 20, 12)
	lines := []string{"plan CPU ms per plan (16 instances): size, budget of 80x4 for all, budget scaled to the size"}
	for _, c := range []planClass{twenty, eighty} {
		fixed := planCPU(c, workshop.DefaultDispatchBudget)
		sized := planCPU(c, 0)
		lines = append(lines, fmt.Sprintf("  %-5s %7.2f ms %7.2f ms", c.name, fixed, sized))
	}
	return lines
}

// watchLocation is a seeded location and its jobs (id, updatedAt), one per wave.
type watchLocation struct {
	loc  workshop.Location
	jobs []workshop.Job
}

// watchZone is a fixed-offset zone in which it is about 10:00 now, so that
// the locations are open while the bench runs (working hours 08:00-17:30).
func watchZone(now time.Time) string {
	off := (10 - now.UTC().Hour() + 24) % 24
	if off > 12 {
		off -= 24
	}
	switch {
	case off == 0:
		return "UTC"
	case off > 0:
		return "Etc/GMT-" + strconv.Itoa(off) // the IANA Etc zones' signs are inverted
	default:
		return "Etc/GMT+" + strconv.Itoa(-off)
	}
}

// seedWatchLocations makes n locations of the fixture, watchSeeders at once.
func seedWatchLocations(ctx context.Context, st *store.Store, n int) ([]watchLocation, error) {
	now := time.Now()
	org, err := st.CreateOrg(ctx, workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Dealer group", PlanTier: workshop.PlanPro,
		CreatedAt: workshop.MicrosOf(now), UpdatedAt: workshop.MicrosOf(now)})
	if err != nil {
		return nil, err
	}
	out := make([]watchLocation, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range watchSeeders {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = seedWatchLocation(ctx, st, org.ID, i, watchZone(now))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

func seedWatchLocation(ctx context.Context, st *store.Store, orgID string, i int, zone string) (watchLocation, error) {
	now := workshop.MicrosOf(time.Now())
	loc, err := st.CreateLocation(ctx, workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: orgID,
		Name: fmt.Sprintf("Site %d", i+1), Timezone: zone, CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now}, workshop.DefaultSettings())
	if err != nil {
		return watchLocation{}, err
	}
	rng := rand.New(rand.NewPCG(uint64(i), 30))
	skills := []string{"engine", "brakes", "tyres"}
	codes := []string{"OIL", "BRAKE", "TYRE", "INSPECT"}
	for k, code := range codes {
		if _, err := st.PutCatalogItem(ctx, workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: orgID,
			LocationID: loc.ID, ServiceCode: code, Name: code, EstimatedDuration: 30 + 15*k,
			RequiredSkills: []string{skills[k%len(skills)]}, IsActive: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			return watchLocation{}, err
		}
	}
	for k := range watchTechs {
		if _, err := st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: orgID,
			LocationID: loc.ID, Name: fmt.Sprintf("Tech %d", k+1), Skills: []string{skills[k%3], skills[(k+1)%3]}, WIPLimit: 2,
			Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			return watchLocation{}, err
		}
	}
	for k := range watchBays {
		if _, err := st.CreateBay(ctx, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: orgID, LocationID: loc.ID,
			Name: fmt.Sprintf("Bay %d", k+1), Equipment: []string{}, Services: []string{}, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			return watchLocation{}, err
		}
	}
	wl := watchLocation{loc: loc}
	v := store.Visibility{OrgID: orgID}
	for k := range watchJobs {
		// Half the jobs promised within hours, as a busy day has them
		// (some at risk from the start: the planner searches for their
		// best order, at full cost); the other half, which the waves
		// turn, three to six days out: on track until their wave.
		promise := workshop.OffsetTime{Time: time.Now().Add(time.Duration(72+rng.IntN(72)) * time.Hour)}
		if k >= watchWaveJobs {
			promise.Time = time.Now().Add(time.Duration(60+rng.IntN(420)) * time.Minute)
		}
		jc, err := st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: orgID, LocationID: loc.ID,
			Priority: "normal", Source: "other", PromiseTime: &promise, ArrivalTime: &workshop.OffsetTime{Time: time.Now()},
			CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, false)
		if err != nil {
			return wl, err
		}
		for s := range watchSteps {
			code := codes[rng.IntN(len(codes))]
			if _, err := st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: jc.Job.ID, Phase: s,
				SchedulingMode: "sequential", TechIDs: []string{}, Status: workshop.StepPending, ServiceCode: &code,
				CreatedAt: now, UpdatedAt: now}); err != nil {
				return wl, err
			}
		}
		wl.jobs = append(wl.jobs, jc.Job)
	}
	return wl, nil
}

// waveResult is what a wave's deliveries showed at the receiver.
type waveResult struct {
	changes int
	// latencies: from the answer to each change's write to its job's
	// job.at_risk delivery at the receiver, for those that arrived.
	latencies []time.Duration
	// pending are the changes whose delivery had not arrived when the wave
	// stopped waiting (watchWaveTimeout): late, or lost if it never comes.
	pending map[string]time.Time
	// duplicates: events delivered as more than one delivery; twice: turns
	// told by more than one event; again: attempts made again (the same
	// delivery arriving more than once, as after a kill).
	duplicates, twice, again int
	// earlier are the locations whose far jobs had all turned at risk
	// before their change (an earlier wave's late jobs, planned first,
	// pushed them past their promise): none was changed.
	earlier int
}

func (r *waveResult) add(o waveResult) {
	r.changes += o.changes
	r.latencies = append(r.latencies, o.latencies...)
	if r.pending == nil {
		r.pending = map[string]time.Time{}
	}
	for j, at := range o.pending {
		r.pending[j] = at
	}
	r.duplicates, r.twice, r.again, r.earlier = r.duplicates+o.duplicates, r.twice+o.twice, r.again+o.again, r.earlier+o.earlier
}

func (r waveResult) String() string {
	if len(r.latencies) == 0 {
		return fmt.Sprintf("%d changes, no job.at_risk arrived", r.changes)
	}
	slices.Sort(r.latencies)
	q := func(p float64) string {
		return fmt.Sprintf("%.2f", r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))].Seconds())
	}
	late := 0
	for _, l := range r.latencies {
		if l > 10*time.Second {
			late++
		}
	}
	return fmt.Sprintf("%d changes; change answered -> job.at_risk at the receiver p50 %s / p99 %s / max %s s; "+
		"within 10 s %d, late (over 10 s) %d, not arrived within %s %d; duplicate deliveries %d, turns told twice %d, "+
		"attempts made again %d; no job left to turn %d",
		r.changes, q(0.5), q(0.99), q(1), len(r.latencies)-late, late, watchWaveTimeout, len(r.pending), r.duplicates, r.twice, r.again, r.earlier)
}

// riskTracker follows which jobs are at risk, from the outbox's job.at_risk
// and job.on_track events, and which jobs the bench changed, so that each
// change turns a job that is on track and each event is counted once.
type riskTracker struct {
	seq     int64 // the highest seq read
	seen    map[int64]bool
	atRisk  map[string]bool
	changed map[string]bool
}

// trackerLookBack is how far below the highest seq read each read starts
// again: on PostgreSQL a seq is taken at insert, not at commit, so an
// event may appear below one seen.
const trackerLookBack = 2000

// read reads the events after the last read (and trackerLookBack below
// it) not seen yet, noting the jobs' turns; it returns the jobs that
// turned at risk in them, by id, when (the event's occurredAt).
func (tr *riskTracker) read(ctx context.Context, st *store.Store) ([]turn, error) {
	if tr.seen == nil {
		tr.seen = map[int64]bool{}
	}
	var turned []turn
	for from := max(0, tr.seq-trackerLookBack); ; {
		evs, err := st.EventsAfter(ctx, from, 5000)
		if err != nil {
			return turned, err
		}
		for _, ev := range evs {
			from, tr.seq = ev.Seq, max(tr.seq, ev.Seq)
			if tr.seen[ev.Seq] || ev.Name != workshop.EventJobAtRisk && ev.Name != workshop.EventJobOnTrack {
				continue
			}
			tr.seen[ev.Seq] = true
			var d struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				return turned, err
			}
			tr.atRisk[d.ID] = ev.Name == workshop.EventJobAtRisk
			if tr.atRisk[d.ID] {
				turned = append(turned, turn{d.ID, ev.OccurredAt.Time()})
			}
		}
		if len(evs) < 5000 {
			return turned, nil
		}
	}
}

type turn struct {
	job string
	at  time.Time
}

func (tr *riskTracker) catchUp(ctx context.Context, st *store.Store) error {
	_, err := tr.read(ctx, st)
	return err
}

// sendWave moves the promise of a far-promised job on track (one not
// changed before) of every location into the past (watchSeeders writers)
// and waits for the job.at_risk events; during, if set, is called a
// second into the wave.
func sendWave(ctx context.Context, st *store.Store, tr *riskTracker, rcv *riskReceiver, locs []watchLocation, during func()) (waveResult, error) {
	if err := tr.catchUp(ctx, st); err != nil {
		return waveResult{}, err
	}
	var jobs []workshop.Job
	earlier := 0
	for _, wl := range locs {
		k := slices.IndexFunc(wl.jobs[:watchWaveJobs], func(j workshop.Job) bool { return !tr.atRisk[j.ID] && !tr.changed[j.ID] })
		if k < 0 {
			earlier++
			continue
		}
		jobs = append(jobs, wl.jobs[k])
		tr.changed[wl.jobs[k].ID] = true
	}
	if during != nil {
		timer := time.AfterFunc(time.Second, during)
		defer timer.Stop()
	}
	committed := make(map[string]time.Time, len(jobs))
	var mu sync.Mutex
	next := make(chan workshop.Job)
	errs := make(chan error, watchSeeders)
	var wg sync.WaitGroup
	for range watchSeeders {
		wg.Go(func() {
			for j := range next {
				late := &workshop.OffsetTime{Time: time.Now().Add(-time.Hour)}
				if _, err := st.PatchJob(ctx, store.Visibility{OrgID: j.OrgID}, j.ID,
					store.JobPatch{UpdatedAt: j.UpdatedAt, PromiseTime: &late}, workshop.MicrosOf(time.Now())); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				committed[j.ID] = time.Now()
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return waveResult{}, err
	}
	r, err := awaitArrivals(ctx, rcv, committed, watchWaveTimeout)
	r.earlier = earlier
	return r, err
}

// awaitArrivals waits until every changed job's job.at_risk delivery
// reached the receiver (then 3 s more, for duplicates), or for timeout.
func awaitArrivals(ctx context.Context, rcv *riskReceiver, committed map[string]time.Time, timeout time.Duration) (waveResult, error) {
	r := waveResult{changes: len(committed), pending: map[string]time.Time{}}
	deadline := time.Now().Add(timeout)
	var allSince time.Time
	for time.Now().Before(deadline) && (allSince.IsZero() || time.Since(allSince) < 3*time.Second) {
		arrived := 0
		for j := range committed {
			if _, ok := rcv.arrived(j); ok {
				arrived++
			}
		}
		if arrived == len(committed) && allSince.IsZero() {
			allSince = time.Now()
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return r, err
		}
	}
	jobs := make([]string, 0, len(committed))
	for j, at := range committed {
		jobs = append(jobs, j)
		a, ok := rcv.arrived(j)
		if !ok {
			r.pending[j] = at
			continue
		}
		r.latencies = append(r.latencies, max(0, a.at.Sub(at)))
		r.again += a.attempts - 1
	}
	r.duplicates, r.twice = rcv.duplicates(jobs)
	r.again -= r.duplicates
	return r, nil
}

// lostAfter waits up to wait for the deliveries still pending after their
// waves: those that arrive were late; the others are lost.
func lostAfter(ctx context.Context, rcv *riskReceiver, pending map[string]time.Time, wait time.Duration) (late []time.Duration, lost int, err error) {
	if len(pending) == 0 {
		return nil, 0, nil
	}
	r, err := awaitArrivals(ctx, rcv, pending, wait)
	return r.latencies, len(r.pending), err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitMinuteSecond waits until the wall clock's second of the minute is sec.
func waitMinuteSecond(ctx context.Context, sec float64) error {
	now := time.Now()
	at := now.Truncate(time.Minute).Add(time.Duration(sec * float64(time.Second)))
	if !at.After(now) {
		at = at.Add(time.Minute)
	}
	return sleepCtx(ctx, time.Until(at))
}

// waitSettled waits until every location's watch has looked at its
// current plan version (the first look of all of them, after a start).
func waitSettled(ctx context.Context, st *store.Store) error {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		behind, err := st.WatchBehind(ctx)
		if err != nil || behind == 0 {
			return err
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return errors.New("the watch did not look at every location within 10 minutes")
}

// startServers starts procs `workshop serve` processes on the database,
// listening on ports of the range, delivering to the local receiver.
func startServers(ctx context.Context, serve []string, dbURL string, procs int, p *ports) ([]*exec.Cmd, error) {
	var ps []*exec.Cmd
	for range procs {
		addr, err := p.addr()
		if err != nil {
			return ps, err
		}
		args := append(slices.Clone(serve[1:]), "serve", "--database", dbURL, "--addr", addr, "--webhook-allow-insecure")
		c := exec.CommandContext(ctx, serve[0], args...)
		c.Stdout, c.Stderr = io.Discard, io.Discard
		if err := c.Start(); err != nil {
			return ps, err
		}
		ps = append(ps, c)
	}
	return ps, nil
}

func stopServers(ps []*exec.Cmd) {
	for _, c := range ps {
		if c.ProcessState != nil { // killed and waited for
			continue
		}
		_ = c.Process.Signal(syscall.SIGTERM)
		_ = c.Wait()
	}
}

// minuteCPU is the CPU (user + system) each process spends in every
// minute of window, measured from /proc: the worst minute and the mean
// per process, and every minute's figures.
func minuteCPU(ctx context.Context, ps []*exec.Cmd, window time.Duration) (string, error) {
	read := func() ([]time.Duration, error) {
		out := make([]time.Duration, len(ps))
		for i, c := range ps {
			d, err := processCPU(c.Process.Pid)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	last, err := read()
	if err != nil {
		return "", err
	}
	minutes := max(1, int(window/time.Minute))
	per := make([][]float64, len(ps)) // per process, per minute: seconds
	for range minutes {
		if err := sleepCtx(ctx, time.Minute); err != nil {
			return "", err
		}
		now, err := read()
		if err != nil {
			return "", err
		}
		for i := range ps {
			per[i] = append(per[i], (now[i] - last[i]).Seconds())
		}
		last = now
	}
	var parts []string
	for i, ms := range per {
		sum := 0.0
		for _, v := range ms {
			sum += v
		}
		var each []string
		for _, v := range ms {
			each = append(each, fmt.Sprintf("%.2f", v))
		}
		parts = append(parts, fmt.Sprintf("process %d: worst minute %.2f s, mean %.2f s per minute [%s]", i+1, slices.Max(ms), sum/float64(len(ms)),
			strings.Join(each, " ")))
	}
	return strings.Join(parts, "; "), nil
}

// processCPU reads a process's user and system time from /proc (Linux;
// clock ticks of 1/100 s, as the kernel exports them).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("serve CPU: %w (the promise watch scenario reads /proc: Linux only)", err)
	}
	// Fields after the command's closing parenthesis: state is field 3,
	// utime 14 and stime 15.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
