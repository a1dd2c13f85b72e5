package workshop

// The first scheduler: pure functions that lay a job's steps out in time on
// a location's working calendar, project the completion of a job in
// progress and compare it with the promise made to the customer.
//
// Every duration here is working time: the time between two instants that
// falls inside the location's opening hours and outside its breaks. Opening
// hours and breaks are wall-clock times of a weekday in the location's zone,
// so they are turned into instants per local date with time.Date: a working
// day keeps its wall-clock hours across DST changes, and the working time of
// a period is the real time between its two instants (a period that spans a
// DST change is an hour shorter or longer).

import (
	"iter"
	"slices"
	"strings"
	"time"
)

// Calendar is when a location works, in its zone.
type Calendar struct {
	Zone     *time.Location // nil is UTC
	Settings Settings

	week *workWeek // compiled by NewCalendar; nil: compiled on every call
}

// NewCalendar is a calendar compiled once, for many questions (a plan asks
// hundreds), in one goroutine: it remembers the dates it has laid out.
func NewCalendar(zone *time.Location, settings Settings) Calendar {
	c := Calendar{Zone: zone, Settings: settings}
	c.week = c.compile()
	return c
}

// Open reports whether t is working time (inside opening hours, outside
// breaks). A period includes its start and excludes its end: 08:00 is open,
// 17:30 is closed for hours 08:00-17:30. A calendar without any working time
// is open all the time (see NextOpen).
func (c Calendar) Open(t time.Time) bool { return c.compile().open(t) }

// NextOpen returns t if it is working time, else the start of the next
// working period. It is error-free: if the calendar has no working time at
// all (no opening hours, none that parse, or breaks that cover them all), it
// returns t unchanged and AddWork treats all time as working time, so a
// misconfigured location still gets a plan. The result is in the calendar's
// zone.
func (c Calendar) NextOpen(t time.Time) time.Time { return c.compile().nextOpen(t).In(c.zone()) }

// AddWork returns the instant at which d of working time, counted from t,
// has passed (skipping closed hours, breaks, nights, weekends; correct across
// DST changes because it works in wall-clock local dates/times via time.Date
// in c.Zone). Work that fills a period exactly ends at the period's end
// (17:30), not at the next opening. d <= 0 returns t. The result is in the
// calendar's zone.
func (c Calendar) AddWork(t time.Time, d time.Duration) time.Time {
	return c.compile().addWork(t, d).In(c.zone())
}

// WorkBetween returns the working time between a and b (a <= b), for slack;
// 0 when b is not after a. WorkBetween(t, AddWork(t, d)) == d.
func (c Calendar) WorkBetween(a, b time.Time) time.Duration { return c.compile().workBetween(a, b) }

func (c Calendar) zone() *time.Location {
	if c.Zone == nil {
		return time.UTC
	}
	return c.Zone
}

// Interval is a stretch of time, [Start, End).
type Interval struct{ Start, End time.Time }

// PlanStep is a step as the scheduler sees it.
type PlanStep struct {
	ID       string
	Phase    int
	Mode     string // "parallel", or sequential (anything else)
	Duration time.Duration
	TechIDs  []string
	BayID    string // "" when none
	Status   string // pending | in_progress | completed; anything else counts as pending
	// StartedAt and CompletedAt are the actual times, nil when unknown.
	StartedAt, CompletedAt *time.Time
}

// PlanStepOf is the scheduler's view of a stored step.
func PlanStepOf(s Step) PlanStep {
	p := PlanStep{
		ID:       s.ID,
		Phase:    s.Phase,
		Mode:     s.SchedulingMode,
		Duration: time.Duration(s.EstimatedDuration) * time.Minute,
		TechIDs:  slices.Clone(s.TechIDs),
		Status:   s.Status,
	}
	if s.BayID != nil {
		p.BayID = *s.BayID
	}
	if s.StartedAt != nil {
		t := s.StartedAt.Time()
		p.StartedAt = &t
	}
	if s.CompletedAt != nil {
		t := s.CompletedAt.Time()
		p.CompletedAt = &t
	}
	return p
}

// BayBuffer is the settings' bay buffer as a duration, for
// PlanInput.BayBuffer; a negative setting counts as none.
func (s Settings) BayBuffer() time.Duration {
	return time.Duration(max(s.BayBufferMinutes, 0)) * time.Minute
}

// StepWindow is one step's planned, actual and projected times.
type StepWindow struct {
	ID                       string
	PlannedStart, PlannedEnd time.Time  // the baseline plan
	ActualStart, ActualEnd   *time.Time // from StartedAt/CompletedAt
	// ProjectedEnd is, for a completed step, ActualEnd; in progress, actual
	// start + duration in working time, but not before now; pending, laid
	// out from now.
	ProjectedEnd time.Time
}

// JobPlan is a job's schedule. (The issue called it Plan; that name is the
// organisation's plan tier in this package.) Every time in it is in the
// calendar's zone.
type JobPlan struct {
	Steps                    []StepWindow // in the order given
	PlannedStart, PlannedEnd time.Time    // of the job (min/max of the steps' planned windows; both = PlanInput.Start when there are no steps)
	ActualStart, ActualEnd   *time.Time   // first actual start; last actual end only when every step is completed
	// ProjectedCompletion is the latest projected end of the steps: the last
	// actual end when every step is completed, never before now otherwise.
	// A job without steps has nothing to do: the later of Start and Now.
	ProjectedCompletion time.Time
}

// PlanInput is what PlanJob needs.
type PlanInput struct {
	Calendar Calendar
	Start    time.Time // arrival, or creation time when there is none; the baseline is laid out from Calendar.NextOpen(Start)
	Now      time.Time
	Steps    []PlanStep
	TechBusy map[string][]Interval // each assigned technician's other planned work (sorted or not)
	// BayBuffer is the turnaround kept free in a bay between two steps that
	// use it, in working time (Settings.BayBuffer); negative is none.
	BayBuffer time.Duration
}

// PlanJob lays a job's steps out twice on the calendar: the baseline (every
// step as if pending, from NextOpen(Start)) gives the planned windows; the
// projection (actual times where there are some, the rest from NextOpen(Now))
// gives the projected ends.
//
// Layout: phases in ascending order, each starting when the previous one
// has ended (its latest step end). In a phase, sequential steps run one after
// another in the given order, starting at the phase start; parallel steps
// all start at the phase start, alongside the sequential chain. A step
// starts no earlier than:
//   - every assigned technician is free for its whole duration: its working
//     time overlaps neither the technician's TechBusy intervals nor the
//     technician's steps of this job laid out before it (a technician does one
//     step at a time, so two parallel steps of one technician run one after
//     the other; a step takes the earliest free gap, which may come before a
//     step laid out earlier that had to wait for someone else);
//   - the latest end of this job's steps laid out before it in the same bay
//     plus BayBuffer of working time;
//
// and it always starts in working time (NextOpen). A busy interval that only
// covers closed time blocks nothing.
//
// Projection: completed steps take [StartedAt, CompletedAt] (a completed
// step without CompletedAt ends at the earlier of its planned end and now,
// not before its start); in-progress steps start at StartedAt (now when
// unknown) and end at max(now, AddWork(StartedAt, Duration)); these actual
// windows occupy their technicians and bays before any pending step is
// placed. Pending steps follow the layout above, no earlier than
// NextOpen(Now).
func PlanJob(in PlanInput) JobPlan {
	w := in.Calendar.compile()
	z := w.zone
	order := make([]int, len(in.Steps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return in.Steps[a].Phase - in.Steps[b].Phase })
	base := w.layout(in, order, nil)
	proj := w.layout(in, order, base)

	p := JobPlan{Steps: make([]StepWindow, len(in.Steps))}
	if len(in.Steps) == 0 {
		p.PlannedStart, p.PlannedEnd = in.Start.In(z), in.Start.In(z)
		p.ProjectedCompletion = Later(in.Start, in.Now).In(z)
		return p
	}
	allDone := true
	for i, st := range in.Steps {
		p.Steps[i] = StepWindow{
			ID:           st.ID,
			PlannedStart: base[i].Start.In(z),
			PlannedEnd:   base[i].End.In(z),
			ActualStart:  timeIn(st.StartedAt, z),
			ActualEnd:    timeIn(st.CompletedAt, z),
			ProjectedEnd: proj[i].End.In(z),
		}
		if i == 0 || base[i].Start.Before(p.PlannedStart) {
			p.PlannedStart = base[i].Start.In(z)
		}
		if i == 0 || base[i].End.After(p.PlannedEnd) {
			p.PlannedEnd = base[i].End.In(z)
		}
		if i == 0 || proj[i].End.After(p.ProjectedCompletion) {
			p.ProjectedCompletion = proj[i].End.In(z)
		}
		if st.StartedAt != nil && (p.ActualStart == nil || st.StartedAt.Before(*p.ActualStart)) {
			p.ActualStart = timeIn(st.StartedAt, z)
		}
		allDone = allDone && st.Status == StepCompleted
	}
	if allDone {
		for _, st := range in.Steps {
			if st.CompletedAt != nil && (p.ActualEnd == nil || st.CompletedAt.After(*p.ActualEnd)) {
				p.ActualEnd = timeIn(st.CompletedAt, z)
			}
		}
	}
	return p
}

const modeParallel = "parallel"

// layout places every step of in, visiting them in order (by phase, then as
// given). With a baseline it is the projection (actual windows kept, pending
// steps from now); without, it is the baseline itself.
func (w *workWeek) layout(in PlanInput, order []int, baseline []Interval) []Interval {
	project := baseline != nil
	out := make([]Interval, len(in.Steps))
	fixed := make([]bool, len(in.Steps))
	own := map[string][]Interval{}   // this job's windows per technician
	bayEnd := map[string]time.Time{} // latest end of this job's windows per bay
	occupy := func(st PlanStep, iv Interval) {
		for _, id := range techsOf(st) {
			own[id] = append(own[id], iv)
		}
		if e, ok := bayEnd[st.BayID]; st.BayID != "" && (!ok || iv.End.After(e)) {
			bayEnd[st.BayID] = iv.End
		}
	}
	floor := w.nextOpen(in.Start)
	if project {
		// Facts first: what is done or under way occupies its technicians
		// and bay whatever its phase.
		floor = Later(floor, w.nextOpen(in.Now))
		for i, st := range in.Steps {
			switch st.Status {
			case StepCompleted:
				out[i] = completedWindow(st, baseline[i], in.Now)
			case StepInProgress:
				s := in.Now
				if st.StartedAt != nil {
					s = *st.StartedAt
				}
				out[i] = Interval{s, Later(in.Now, w.addWork(s, max(st.Duration, 0)))}
			default:
				continue
			}
			fixed[i] = true
			occupy(st, out[i])
		}
	}
	phaseStart := w.nextOpen(in.Start)
	for k := 0; k < len(order); {
		phase := in.Steps[order[k]].Phase
		chain, phaseEnd := phaseStart, phaseStart
		for ; k < len(order) && in.Steps[order[k]].Phase == phase; k++ {
			i := order[k]
			st := in.Steps[i]
			if !fixed[i] {
				earliest := Later(phaseStart, floor)
				if st.Mode != modeParallel {
					earliest = Later(earliest, chain)
				}
				if e, ok := bayEnd[st.BayID]; st.BayID != "" && ok {
					earliest = Later(earliest, w.addWork(e, max(in.BayBuffer, 0)))
				}
				out[i] = w.fit(earliest, max(st.Duration, 0), techsOf(st), in.TechBusy, own)
				occupy(st, out[i])
			}
			if st.Mode != modeParallel {
				chain = Later(chain, out[i].End)
			}
			phaseEnd = Later(phaseEnd, out[i].End)
		}
		phaseStart = phaseEnd
	}
	return out
}

// fit is the earliest window of d working time starting at or after
// earliest in which no technician of techs is busy (TechBusy or this job's
// own windows). It only ever moves to the end of a conflicting interval: any
// start before that end would still overlap it, so the result is the
// earliest possible. A zero-length step takes no working time and
// conflicts with nothing.
func (w *workWeek) fit(earliest time.Time, d time.Duration, techs []string, busy, own map[string][]Interval) Interval {
	s := w.nextOpen(earliest)
	for {
		iv := Interval{s, w.addWork(s, d)}
		if d == 0 {
			return iv
		}
		next := s
		for _, id := range techs {
			for _, list := range [2][]Interval{busy[id], own[id]} {
				for _, b := range list {
					if b.End.After(next) && w.overlaps(iv, b) {
						next = b.End
					}
				}
			}
		}
		if !next.After(s) {
			return iv
		}
		s = w.nextOpen(next)
	}
}

// overlaps tells whether a and b share working time.
func (w *workWeek) overlaps(a, b Interval) bool {
	lo, hi := Later(a.Start, b.Start), Earlier(a.End, b.End)
	return hi.After(lo) && w.workBetween(lo, hi) > 0
}

// completedWindow is a completed step's actual window. Without CompletedAt
// the step is taken as done at its planned end, or now if that is earlier
// (it is done, so not in the future), never before its StartedAt.
func completedWindow(st PlanStep, planned Interval, now time.Time) Interval {
	var end time.Time
	if st.CompletedAt != nil {
		end = *st.CompletedAt
	} else {
		end = Earlier(planned.End, now)
		if st.StartedAt != nil {
			end = Later(end, *st.StartedAt)
		}
	}
	start := end
	if st.StartedAt != nil && st.StartedAt.Before(end) {
		start = *st.StartedAt
	}
	return Interval{start, end}
}

// techsOf is a step's distinct non-empty technician IDs.
func techsOf(st PlanStep) []string {
	var ids []string
	for _, id := range st.TechIDs {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// PromiseStatus compares a promise time with a projection.
type PromiseStatus struct {
	ProjectedCompletion time.Time
	AtRisk              bool
	// SlackMinutes is the working time from the projection to the promise
	// in whole minutes: positive when early (rounded down), negative when late
	// (rounded away from zero, so any lateness is at least -1).
	SlackMinutes int
}

// AtRiskSlack is the working-time slack below which an unfinished job is at
// risk of missing its promise.
const AtRiskSlack = 30 * time.Minute

// PromiseOf compares a promise time with a projected (or, when finished,
// actual) completion.
//
// SlackMinutes = WorkBetween(projected, promise) when the projection is not
// after the promise, else -WorkBetween(promise, projected); see
// PromiseStatus for the rounding. AtRisk is true when the projection is after
// the promise (late, even when the lateness falls in closed time and so has
// no working minutes), or when the job is not finished and the slack is under
// AtRiskSlack (30 working minutes). A finished job on or before its promise is
// never at risk. ProjectedCompletion is projected, in the calendar's zone.
func PromiseOf(cal Calendar, promise, projected time.Time, finished bool) PromiseStatus {
	w := cal.compile()
	late := projected.After(promise)
	var slack int
	if late {
		slack = -int((w.workBetween(promise, projected) + time.Minute - 1) / time.Minute)
	} else {
		slack = int(w.workBetween(projected, promise) / time.Minute)
	}
	return PromiseStatus{
		ProjectedCompletion: projected.In(w.zone),
		AtRisk:              late || (!finished && slack < int(AtRiskSlack/time.Minute)),
		SlackMinutes:        slack,
	}
}

// span is a working stretch of a weekday, in minutes after local midnight,
// [from, to); to may be 1440 ("24:00").
type span struct{ from, to int }

// workWeek is a compiled Calendar: each weekday's opening hours minus its
// breaks, merged and sorted. PlanJob compiles once and lays out many steps.
//
// A workWeek remembers the periods of the dates it has laid out (a plan asks
// about the same few dates hundreds of times, and each time.Date in a zone
// looks the zone up), so one made by NewCalendar is for one goroutine.
type workWeek struct {
	zone   *time.Location
	days   [7][]span // by time.Weekday
	always bool      // no working time configured: all time is working time
	seen   []datePeriods
}

// datePeriods are the working periods of one local date, by its day number.
type datePeriods struct {
	date    int
	periods []Interval
}

// maxSeenDates bounds what a workWeek remembers; past it, it starts over.
const maxSeenDates = 32

// compile reads the settings leniently: an entry with an unknown day, a time
// that is not HH:MM (00:00-24:00) or an end not after its start is ignored,
// so a misconfigured location degrades instead of failing. Several hours
// for one day are merged; breaks are cut out of them.
func (c Calendar) compile() *workWeek {
	if c.week != nil {
		return c.week
	}
	w := &workWeek{zone: c.zone(), always: true}
	var breaks [7][]span
	for _, h := range c.Settings.OperatingHours {
		if d, s, ok := daySpan(h.Day, h.Open, h.Close); ok {
			w.days[d] = append(w.days[d], s)
		}
	}
	for _, b := range c.Settings.Breaks {
		if d, s, ok := daySpan(b.Day, b.Start, b.End); ok {
			breaks[d] = append(breaks[d], s)
		}
	}
	for d := range w.days {
		w.days[d] = subtract(merge(w.days[d]), merge(breaks[d]))
		if len(w.days[d]) > 0 {
			w.always = false
		}
	}
	return w
}

var weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

func daySpan(day, from, to string) (time.Weekday, span, bool) {
	d, ok := weekdays[strings.ToLower(strings.TrimSpace(day))]
	f, okf := clockMinutes(from)
	t, okt := clockMinutes(to)
	return d, span{f, t}, ok && okf && okt && f < t
}

// clockMinutes reads "HH:MM" (or "H:MM"), 00:00 to 24:00, as minutes after
// midnight.
func clockMinutes(s string) (int, bool) {
	hs, ms, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(hs) < 1 || len(hs) > 2 || len(ms) != 2 {
		return 0, false
	}
	h, m := 0, 0
	for _, r := range hs {
		if r < '0' || r > '9' {
			return 0, false
		}
		h = h*10 + int(r-'0')
	}
	for _, r := range ms {
		if r < '0' || r > '9' {
			return 0, false
		}
		m = m*10 + int(r-'0')
	}
	if m > 59 || h > 24 || (h == 24 && m != 0) {
		return 0, false
	}
	return h*60 + m, true
}

// merge sorts spans and joins those that overlap or touch.
func merge(ss []span) []span {
	slices.SortFunc(ss, func(a, b span) int { return a.from - b.from })
	var out []span
	for _, s := range ss {
		if n := len(out); n > 0 && s.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// subtract cuts the sorted, merged spans cut out of the sorted, merged
// spans open.
func subtract(open, cut []span) []span {
	var out []span
	for _, o := range open {
		from := o.from
		for _, c := range cut {
			if c.to <= from || c.from >= o.to {
				continue
			}
			if c.from > from {
				out = append(out, span{from, c.from})
			}
			from = max(from, c.to)
		}
		if from < o.to {
			out = append(out, span{from, o.to})
		}
	}
	return out
}

// day returns the working periods of the local date y-m-d (d may be out of
// range; time.Date normalises it) as instants. Each bound is a wall-clock
// time made with time.Date in the zone, so DST shifts the instants, not the
// hours. A period a DST gap empties is dropped. The result is shared: not
// to be modified.
func (w *workWeek) day(y int, m time.Month, d int) []Interval {
	date := dayNumber(y, m, d)
	for _, s := range w.seen {
		if s.date == date {
			return s.periods
		}
	}
	var periods []Interval
	for _, s := range w.days[time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Weekday()] {
		a := time.Date(y, m, d, 0, s.from, 0, 0, w.zone)
		b := time.Date(y, m, d, 0, s.to, 0, 0, w.zone)
		if b.After(a) {
			periods = append(periods, Interval{a, b})
		}
	}
	if len(w.seen) == maxSeenDates {
		w.seen = w.seen[:0]
	}
	w.seen = append(w.seen, datePeriods{date, periods})
	return periods
}

// periodsFrom yields, in order and without end, the working periods that
// end after t. It starts on the local day before t's so that nothing a DST
// shift carries over midnight is missed. Only for a calendar with working
// time (not always): then every week has a period and the sequence goes on.
func (w *workWeek) periodsFrom(t time.Time) iter.Seq[Interval] {
	return func(yield func(Interval) bool) {
		y, m, d := t.In(w.zone).Date()
		for i := -1; ; i++ {
			for _, p := range w.day(y, m, d+i) {
				if p.End.After(t) && !yield(p) {
					return
				}
			}
		}
	}
}

func (w *workWeek) open(t time.Time) bool {
	if w.always {
		return true
	}
	for p := range w.periodsFrom(t) {
		return !p.Start.After(t)
	}
	return false
}

func (w *workWeek) nextOpen(t time.Time) time.Time {
	if w.always {
		return t
	}
	for p := range w.periodsFrom(t) {
		return Later(p.Start, t)
	}
	return t
}

func (w *workWeek) addWork(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return t
	}
	if w.always {
		return t.Add(d)
	}
	for p := range w.periodsFrom(t) {
		s := Later(p.Start, t)
		if avail := p.End.Sub(s); d > avail {
			d -= avail
			continue
		}
		return s.Add(d)
	}
	return t // not reached: periodsFrom does not end
}

func (w *workWeek) workBetween(a, b time.Time) time.Duration {
	if !b.After(a) {
		return 0
	}
	if w.always {
		return b.Sub(a)
	}
	var sum time.Duration
	for p := range w.periodsFrom(a) {
		if !p.Start.Before(b) {
			break
		}
		sum += Earlier(p.End, b).Sub(Later(p.Start, a))
	}
	return sum
}

// Later is the later of two instants.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Earlier is the earlier of two instants.
func Earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// timeIn copies *t into z, so a plan never aliases its input.
func timeIn(t *time.Time, z *time.Location) *time.Time {
	if t == nil {
		return nil
	}
	c := t.In(z)
	return &c
}
