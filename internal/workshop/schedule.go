package workshop

// A location's working calendar, which the dispatch planner (dispatch*.go)
// and the job detail (detail.go) count working time on.
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

// SubtractWork is AddWork backwards: the latest instant from which d of
// working time runs until t, so that WorkBetween(SubtractWork(t, d), t) ==
// d. d <= 0 returns t. The result is in the calendar's zone.
func (c Calendar) SubtractWork(t time.Time, d time.Duration) time.Time {
	return c.compile().subtractWork(t, d).In(c.zone())
}

// ClosingTime is when the location stops working on the local date
// y-m-d: the end of that date's last working period. It is false for a date
// without working time, and for a calendar without hours.
func (c Calendar) ClosingTime(y int, m time.Month, d int) (time.Time, bool) {
	w := c.compile()
	if w.always {
		return time.Time{}, false
	}
	periods := w.day(y, m, d)
	if len(periods) == 0 {
		return time.Time{}, false
	}
	return periods[len(periods)-1].End.In(c.zone()), true
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

// BayBuffer is the settings' bay buffer as a duration, for
// PlanInput.BayBuffer; a negative setting counts as none.
func (s Settings) BayBuffer() time.Duration {
	return time.Duration(max(s.BayBufferMinutes, 0)) * time.Minute
}

// span is a working stretch of a weekday, in minutes after local midnight,
// [from, to); to may be 1440 ("24:00").
type span struct{ from, to int }

// workWeek is a compiled Calendar: each weekday's opening hours minus its
// breaks, merged and sorted. A plan compiles once and asks it many times.
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

// periodsBefore is periodsFrom backwards: the working periods that start
// before t, the latest first, from the local day after t's.
func (w *workWeek) periodsBefore(t time.Time) iter.Seq[Interval] {
	return func(yield func(Interval) bool) {
		y, m, d := t.In(w.zone).Date()
		for i := 1; ; i-- {
			periods := w.day(y, m, d+i)
			for j := len(periods) - 1; j >= 0; j-- {
				if periods[j].Start.Before(t) && !yield(periods[j]) {
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

func (w *workWeek) subtractWork(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return t
	}
	if w.always {
		return t.Add(-d)
	}
	for p := range w.periodsBefore(t) {
		e := Earlier(p.End, t)
		if avail := e.Sub(p.Start); d > avail {
			d -= avail
			continue
		}
		return e.Add(-d)
	}
	return t // not reached: periodsBefore does not end
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

// OpeningTime is when the location starts working on the local date
// y-m-d: the start of that date's first working period (midnight for a
// calendar without hours). It is false for a date without working time.
func (c Calendar) OpeningTime(y int, m time.Month, d int) (time.Time, bool) {
	w := c.compile()
	if w.always {
		return time.Date(y, m, d, 0, 0, 0, 0, c.zone()), true
	}
	periods := w.day(y, m, d)
	if len(periods) == 0 {
		return time.Time{}, false
	}
	return periods[0].Start.In(c.zone()), true
}
