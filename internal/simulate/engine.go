package simulate

import (
	"math"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Policies and duration settings a run is made of.
const (
	PolicyFCFS = "fcfs" // every ready step to the first qualified free technician and bay
	PolicyPlan = "plan" // the planner re-planned at each event, its steps due now started
)

// Policies are the dispatch policies, in report order.
var Policies = []string{PolicyFCFS, PolicyPlan}

// run is one policy with one planningDurations setting over the days.
type run struct {
	w         *Workshop
	days      []Day
	policy    string
	durations string
	jobs      []*job // entered, in order of entry
	samples   map[string][]sample
	stats     map[string]workshop.DurationStats // per service, as of statsAt
	statsAt   time.Time
	techOn    map[string]*step // the step a technician is working on
	bays      map[string]*bayState
	running   []*step
	absences  []Absence
	// anchor is the last plan as readers saw it (each plan is read), with
	// its announced starts: the plan policy plans from it, and the churn
	// counts each plan's moves from it under either policy.
	anchor          *workshop.DispatchAnchor
	changed         bool // something the plan reads changed since the anchor
	moved, compared int
	confidence      float64   // the promise confidence of quotes with learned durations
	wake            time.Time // the earliest time something waits for, after now
	// shifts are the working time of the technicians with hours of their
	// own (workshop.WorkPeriods, the planner's rule), over the run.
	shifts map[string]workshop.Shift
}

// workClock is when someone works: the location's calendar or a
// technician's own shift.
type workClock interface {
	Open(time.Time) bool
	NextOpen(time.Time) time.Time
	AddWork(time.Time, time.Duration) time.Time
	WorkBetween(a, b time.Time) time.Duration
}

// workOf is when technician tech works.
func (r *run) workOf(tech string) workClock {
	if sh, ok := r.shifts[tech]; ok {
		return sh
	}
	return r.w.Calendar
}

// away: the technician cannot work at now, absent or outside their hours.
func (r *run) away(tech string, now time.Time) bool {
	return r.absent(tech, now) || !r.workOf(tech).Open(now)
}

type job struct {
	spec      *JobSpec
	arrived   bool
	cancelled bool
	from      time.Time // what the promise was quoted from: the agreed or actual arrival
	promise   time.Time
	ready     time.Time // zero until its last step ends
	entered   time.Time
	steps     []*step
}

type step struct {
	spec       *StepSpec
	service    *Service
	job        *job
	status     string
	tech, bay  string
	start, end time.Time
}

type bayState struct {
	on      *step
	lastEnd time.Time
	lastJob *job
}

type sample struct {
	end     time.Time
	minutes int
}

// event is something the days bring at a time: a job entered (bookings
// before the opening, walk-ins as they arrive), a booked vehicle arriving,
// a no-show cancelled.
type event struct {
	at   time.Time
	kind int // in this order at the same time
	job  *JobSpec
}

const (
	enterBooking = iota
	arrive       // a walk-in is entered as it arrives
	cancelNoShow
)

// noShowGrace is how long after its agreed time a booking that has not come
// is cancelled.
const noShowGrace = time.Hour

// bookingsEntered is when a day's bookings are in the system and quoted:
// before anyone arrives.
const bookingsEntered = 7 * time.Hour

// newRun prepares a run of its own: a calendar remembers the dates it has
// laid out, so it is one goroutine's, and each run is.
func newRun(shared *Workshop, days []Day, policy, durations string) *run {
	w := *shared
	w.Calendar = workshop.NewCalendar(shared.Zone, shared.Calendar.Settings)
	r := &run{w: &w, days: days, policy: policy, durations: durations, samples: map[string][]sample{},
		techOn: map[string]*step{}, bays: map[string]*bayState{}}
	for _, b := range w.Bays {
		r.bays[b.ID] = &bayState{}
	}
	for _, d := range days {
		r.absences = append(r.absences, d.Absence)
	}
	r.shifts = map[string]workshop.Shift{}
	if len(days) > 0 {
		from, to := days[0].Date.AddDate(0, 0, -1), days[len(days)-1].Date.AddDate(0, 0, 60)
		for _, t := range w.Techs {
			if t.Hours != nil {
				r.shifts[t.ID] = w.Calendar.Shift(from, to, workshop.WorkTime{Hours: t.Hours})
			}
		}
	}
	return r
}

func (r *run) events() []event {
	var out []event
	for di := range r.days {
		d := &r.days[di]
		for ji := range d.Jobs {
			j := &d.Jobs[ji]
			if !j.Booked {
				out = append(out, event{at: j.Arrival, kind: arrive, job: j})
				continue
			}
			out = append(out, event{at: d.Date.Add(bookingsEntered), kind: enterBooking, job: j})
			if j.NoShow {
				out = append(out, event{at: j.Expected.Add(noShowGrace), kind: cancelNoShow, job: j})
			} else {
				out = append(out, event{at: j.Arrival, kind: arrive, job: j})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b event) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.kind - b.kind
	})
	return out
}

// simulate runs the days and then every job still open to its end (no new
// customers), so that each promise is known kept or broken, and how late.
func (r *run) simulate() {
	events := r.events()
	byID := map[string]*job{}
	if len(events) == 0 {
		return
	}
	now := events[0].at
	limit := r.windowEnd().Add(workshop.DispatchHorizon)
	absenceEdges := r.absenceEdges()
	for !now.After(limit) {
		r.finish(now)
		if slices.Contains(absenceEdges, now) {
			r.changed = true // a technician left or came back
		}
		for len(events) > 0 && !events[0].at.After(now) {
			e := events[0]
			events = events[1:]
			r.changed = true
			if byID[e.job.ID] == nil { // a booking before the day, a walk-in as it comes
				byID[e.job.ID] = r.enter(now, e.job)
			}
			switch e.kind {
			case arrive:
				byID[e.job.ID].arrived = true
			case cancelNoShow:
				byID[e.job.ID].cancelled = true
			}
		}
		r.wake = time.Time{}
		r.dispatch(now)
		next := r.wake
		later := func(t time.Time) {
			if t.After(now) && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
		if len(events) > 0 {
			later(events[0].at)
		}
		for _, s := range r.running {
			later(s.end)
		}
		for _, t := range absenceEdges {
			if t.After(now) {
				later(t)
				break
			}
		}
		for _, sh := range r.shifts { // a part-time technician's next start
			later(sh.NextOpen(now))
		}
		if next.IsZero() {
			return
		}
		now = next
	}
}

func (r *run) absenceEdges() []time.Time {
	var out []time.Time
	for _, a := range r.absences {
		out = append(out, a.From, a.To)
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

func (r *run) absent(tech string, now time.Time) bool {
	for _, a := range r.absences {
		if a.Tech == tech && !now.Before(a.From) && now.Before(a.To) {
			return true
		}
	}
	return false
}

// enter puts a job into the workshop's system at now, with the promise
// the policy quotes from its own plan.
func (r *run) enter(now time.Time, spec *JobSpec) *job {
	j := &job{spec: spec, entered: now, from: spec.Expected}
	for i := range spec.Steps {
		s := &spec.Steps[i]
		j.steps = append(j.steps, &step{spec: s, service: r.w.service(s.Service), job: j, status: workshop.StepPending})
	}
	j.promise = r.quote(now, j)
	r.jobs = append(r.jobs, j)
	return j
}

// quote is the promise of a new job: the availability read's earliest
// completion from the policy's own plan (with learned durations, the plan
// with every duration at its p50 and the confidence's margin, as the
// service quotes); a customer collecting at the closing is promised the
// closing unless that is earlier.
func (r *run) quote(now time.Time, j *job) time.Time {
	durations, confidence := r.durations, 0.0
	if durations != workshop.PlanWithEstimate {
		durations, confidence = workshop.PlanWithP50, r.confidence
	}
	in := r.inputWith(now, durations)
	var steps []workshop.QuoteStep
	for _, s := range j.steps {
		steps = append(steps, workshop.QuoteStep{ServiceCode: s.service.Code, Duration: r.durationWith(now, s, durations),
			RequiredSkills: s.service.Skills, Spread: workshop.DurationSpread(r.statsOf(now, s))})
	}
	q := workshop.QuoteAvailability(in, r.planOf(in), j.from, steps, confidence)
	promise := r.closing(j.from).Add(24 * time.Hour) // no technician or bay for it: tomorrow, by hand
	if q.EarliestCompletion != nil {
		promise = *q.EarliestCompletion
	}
	if j.spec.CollectAtClose {
		promise = workshop.Later(promise, r.closing(j.from))
	}
	return promise
}

// planOf is the policy's plan of in: the planner's from the anchor, or
// first come first served (the planner's decoder in arrival order, no
// search, no anchor).
func (r *run) planOf(in workshop.DispatchInput) workshop.Dispatch {
	if r.policy == PolicyFCFS {
		in.Budget = -1
	} else {
		in.Anchor = r.anchorNow()
	}
	return workshop.PlanDispatch(in)
}

// anchorNow is the anchor as a plan computed now sees it: the steps no
// longer pending left out, and unchanged when nothing changed since.
func (r *run) anchorNow() *workshop.DispatchAnchor {
	if r.anchor == nil {
		return nil
	}
	a := *r.anchor
	pending := r.stepsByID()
	a.Steps = slices.DeleteFunc(slices.Clone(a.Steps), func(s workshop.AnchorStep) bool {
		st := pending[s.StepID]
		return st == nil || st.status != workshop.StepPending
	})
	a.Unchanged = !r.changed
	return &a
}

// input is the planner's view of the workshop at now, as the service would
// read it: the open jobs with every step, technicians away unavailable.
func (r *run) input(now time.Time) workshop.DispatchInput { return r.inputWith(now, r.durations) }

// inputWith is input with the steps' durations as planningDurations
// gives them.
func (r *run) inputWith(now time.Time, durations string) workshop.DispatchInput {
	in := workshop.DispatchInput{Calendar: r.w.Calendar, Now: now, BayBuffer: r.w.BayBuffer}
	for _, t := range r.w.Techs {
		in.Techs = append(in.Techs, workshop.DispatchTech{ID: t.ID, Skills: t.Skills, Unavailable: r.absent(t.ID, now),
			Work: workshop.WorkTime{Hours: t.Hours}})
	}
	for _, b := range r.w.Bays {
		in.Bays = append(in.Bays, workshop.DispatchBay{ID: b.ID, Services: b.Services})
	}
	for _, j := range r.jobs {
		if j.cancelled || !j.ready.IsZero() {
			continue
		}
		promise := j.promise
		dj := workshop.DispatchJob{ID: j.spec.ID, Priority: j.spec.Priority, PromiseTime: &promise, CreatedAt: j.entered}
		// A car there is planned from its arrival; a booking not there yet
		// from its agreed time or, once that has passed, half an hour from
		// now, as the desk would say when it comes (the planner of this
		// build has no notBefore to say it with).
		switch {
		case j.arrived:
			at := j.spec.Arrival
			dj.ArrivalTime = &at
		case j.spec.Booked:
			at := workshop.Later(j.spec.Expected, now.Add(30*time.Minute))
			dj.ArrivalTime = &at
		}
		for _, s := range j.steps {
			ds := workshop.DispatchStep{ID: s.spec.ID, Phase: s.spec.Phase, Mode: s.spec.Mode, Duration: r.durationWith(now, s, durations),
				Status: s.status, ServiceCode: s.service.Code, RequiredSkills: s.service.Skills, Spread: workshop.DurationSpread(r.statsOf(now, s))}
			if s.status != workshop.StepPending {
				start := s.start
				ds.TechIDs, ds.BayID, ds.StartedAt = []string{s.tech}, s.bay, &start
			}
			if s.status == workshop.StepCompleted {
				end := s.end
				ds.CompletedAt = &end
			}
			dj.Steps = append(dj.Steps, ds)
		}
		in.Jobs = append(in.Jobs, dj)
	}
	return in
}

// durationWith is how long a plan with planningDurations takes a step to
// be (contract section 9's rule, workshop.PlanningMinutes): the service's
// learned percentile under p50 or p80 once it has enough samples, else the
// estimate. Every simulated step keeps its catalog estimate.
func (r *run) durationWith(now time.Time, s *step, durations string) time.Duration {
	return time.Duration(workshop.PlanningMinutes(durations, s.service.Estimate, s.service.Estimate, r.statsOf(now, s))) * time.Minute
}

// statsOf is the learned durations of a step's service at now.
func (r *run) statsOf(now time.Time, s *step) workshop.DurationStats {
	if !r.statsAt.Equal(now) || r.stats == nil {
		r.stats, r.statsAt = map[string]workshop.DurationStats{}, now
	}
	st, ok := r.stats[s.service.Code]
	if !ok {
		var minutes []int
		for _, x := range r.samples[s.service.Code] {
			if workshop.InDurationHistory(x.end, now) {
				minutes = append(minutes, x.minutes)
			}
		}
		st = workshop.DurationStatsOf(minutes)
		r.stats[s.service.Code] = st
	}
	return st
}

// finish ends the steps due to end by now: technicians and bays are free,
// the step's working time is a sample, a job whose last step ended is
// ready.
func (r *run) finish(now time.Time) {
	kept := r.running[:0]
	for _, s := range r.running {
		if s.end.After(now) {
			kept = append(kept, s)
			continue
		}
		s.status, r.changed = workshop.StepCompleted, true
		delete(r.techOn, s.tech)
		if b := r.bays[s.bay]; b != nil {
			b.on, b.lastEnd, b.lastJob = nil, s.end, s.job
		}
		r.samples[s.service.Code] = append(r.samples[s.service.Code],
			sample{end: s.end, minutes: workshop.StepWorkMinutes(r.w.Calendar, s.start, s.end)})
		r.stats = nil
		if !slices.ContainsFunc(s.job.steps, func(x *step) bool { return x.status != workshop.StepCompleted }) {
			s.job.ready = s.end
		}
	}
	r.running = kept
}

// start puts technician and bay on a step at now; how long it really
// takes is the service's estimate times its bias, the technician's speed
// and the step's own luck, in working time.
func (r *run) start(now time.Time, s *step, tech *Tech, bay string) {
	actual := float64(s.service.Estimate) * s.service.Bias * tech.Speed * s.spec.Noise
	minutes := max(1, int(math.Round(actual)))
	s.status, s.tech, s.bay, s.start, r.changed = workshop.StepInProgress, tech.ID, bay, now, true
	s.end = r.workOf(tech.ID).AddWork(now, time.Duration(minutes)*time.Minute)
	r.techOn[tech.ID] = s
	if b := r.bays[bay]; b != nil {
		b.on = s
	}
	r.running = append(r.running, s)
}

// waitUntil notes a time something waits for (a bay's buffer, a planned
// start, the opening): the run looks again then.
func (r *run) waitUntil(now, t time.Time) {
	if t.After(now) && (r.wake.IsZero() || t.Before(r.wake)) {
		r.wake = t
	}
}

// bayFree says whether a bay can take a step of j at now: nothing in it,
// and the buffer of working time kept after another job's step.
func (r *run) bayFree(now time.Time, bay string, j *job) bool {
	b := r.bays[bay]
	if b == nil { // a workshop without bays
		return true
	}
	if b.on != nil {
		return false
	}
	if b.lastJob == nil || b.lastJob == j || r.w.BayBuffer <= 0 {
		return true
	}
	if free := r.w.Calendar.AddWork(b.lastEnd, r.w.BayBuffer); free.After(now) {
		r.waitUntil(now, free)
		return false
	}
	return true
}

// closing is the end of the last working period of t's local date (t
// itself on a day without work).
func (r *run) closing(t time.Time) time.Time {
	y, m, d := t.In(r.w.Zone).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, r.w.Zone)
	work := r.w.Calendar.WorkBetween(day, day.AddDate(0, 0, 1))
	if work == 0 {
		return t
	}
	return r.w.Calendar.AddWork(r.w.Calendar.NextOpen(day), work)
}

func (r *run) windowStart() time.Time { return r.w.Calendar.NextOpen(r.days[0].Date) }
func (r *run) windowEnd() time.Time   { return r.closing(r.days[len(r.days)-1].Date) }
