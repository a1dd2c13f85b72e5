package workshop

import (
	"slices"
	"time"
)

// workClock is a calendar's working time tabulated for a plan's span: the
// working periods as Unix microseconds with the work before each, so that
// the planner's many NextOpen and AddWork questions are binary searches
// instead of a walk through local dates. It is the calendar's own periods
// (the job detail's working time), laid out once; a question outside the
// span is the calendar's.
//
// An own clock (ownClock) is one technician's or bay's working time, or
// several's together (worktime.go): its periods are all there is in its
// span, and past its span nothing works until the span's end, which lies
// past any plan's horizon.
type workClock struct {
	cal        Calendar
	from, to   int64   // the span tabulated
	start, end []int64 // the periods in it, in order
	before     []int64 // the work in the span before each period
	always     bool    // the calendar has no working time: all time works
	own        bool    // the periods are a resource's: nothing past them
	// hour[b] is the first period ending after the span's b-th hour
	// begins: the planner asks which period holds an instant millions of
	// times a plan, and a look-up and a step or two answer it faster than
	// a binary search through a fortnight's periods.
	hour []int32
}

// hourMicros is an hour in Unix microseconds, the step of workClock.hour.
const hourMicros = int64(time.Hour / time.Microsecond)

// indexHours fills w.hour once the periods are laid out.
func (w *workClock) indexHours() *workClock {
	if w.always || w.to <= w.from {
		return w
	}
	w.hour = make([]int32, (w.to-w.from)/hourMicros+1)
	i := 0
	for b := range w.hour {
		at := w.from + int64(b)*hourMicros
		for i < len(w.end) && w.end[i] <= at {
			i++
		}
		w.hour[b] = int32(i)
	}
	return w
}

// ownClock tabulates a resource's working periods (Calendar.WorkPeriods)
// over [from, to).
func ownClock(cal Calendar, periods []Interval, from, to time.Time) *workClock {
	w := &workClock{cal: cal, from: from.UnixMicro(), to: to.UnixMicro(), own: true}
	for _, p := range periods {
		w.add(p.Start.UnixMicro(), p.End.UnixMicro())
	}
	return w.indexHours()
}

// add appends a period after the last one.
func (w *workClock) add(s, e int64) {
	var work int64
	if n := len(w.end); n > 0 {
		work = w.before[n-1] + w.end[n-1] - w.start[n-1]
	}
	w.start, w.end, w.before = append(w.start, s), append(w.end, e), append(w.before, work)
}

// both is the own clock of when a and b (own clocks of one span) both work.
func both(a, b *workClock) *workClock {
	w := &workClock{cal: a.cal, from: a.from, to: a.to, own: true}
	for i, k := 0, 0; i < len(a.start) && k < len(b.start); {
		if s, e := max(a.start[i], b.start[k]), min(a.end[i], b.end[k]); s < e {
			w.add(s, e)
		}
		if a.end[i] < b.end[k] {
			i++
		} else {
			k++
		}
	}
	return w.indexHours()
}

func newWorkClock(cal Calendar, from, to time.Time) *workClock {
	w := &workClock{cal: cal, from: from.UnixMicro(), to: to.UnixMicro()}
	var work int64
	week := cal.compile()
	if week.always { // no working time configured: periodsFrom would never yield
		w.always = true
		return w
	}
	for iv := range week.periodsFrom(from) {
		s, e := iv.Start.UnixMicro(), iv.End.UnixMicro()
		if s >= w.to {
			break
		}
		s = max(s, w.from)
		w.start, w.end, w.before = append(w.start, s), append(w.end, e), append(w.before, work)
		work += e - s
	}
	w.always = len(w.start) == 0 && cal.NextOpen(from).Equal(from) && cal.AddWork(from, time.Hour).Equal(from.Add(time.Hour))
	if n := len(w.end); n > 0 {
		w.to = min(w.to, w.end[n-1]) // past the last period tabulated, ask the calendar
	}
	return w.indexHours()
}

func (w *workClock) covers(t int64) bool { return w.always || (t >= w.from && t < w.to) }

// nextOpen is t if it is working time, else the next period's start.
func (w *workClock) nextOpen(t int64) int64 {
	if w.always {
		return t
	}
	if w.own && t >= w.to {
		return t
	}
	if !w.covers(t) && !w.own {
		return w.cal.NextOpen(time.UnixMicro(t)).UnixMicro()
	}
	i := w.period(t)
	if i < len(w.start) && t < w.start[i] {
		return w.start[i]
	}
	if i >= len(w.start) && w.own {
		return w.to // no working time left in the span
	}
	return t
}

// beyond is addWork past an own clock's span: nothing works before its
// end.
func (w *workClock) beyond(t, d int64) int64 { return max(t, w.to) + d }

// period is the index of the period t is in or, between periods, the next.
func (w *workClock) period(t int64) int {
	if t < w.from {
		return 0 // every period ends after the span's start
	}
	b := (t - w.from) / hourMicros
	if b >= int64(len(w.hour)) {
		i, _ := slices.BinarySearch(w.end, t+1) // the first period ending after t
		return i
	}
	i := int(w.hour[b])
	for i < len(w.end) && w.end[i] <= t {
		i++
	}
	return i
}

// addWork is when d of working time from t has passed; work that fills a
// period exactly ends at its end.
func (w *workClock) addWork(t, d int64) int64 {
	if d <= 0 {
		return t
	}
	if w.always {
		return t + d
	}
	if w.own && (t >= w.to || w.period(t) >= len(w.start)) {
		return w.beyond(t, d)
	}
	if !w.own && !w.covers(t) {
		return w.cal.AddWork(time.UnixMicro(t), time.Duration(d)*time.Microsecond).UnixMicro()
	}
	i := w.period(t)
	if i >= len(w.start) {
		return w.cal.AddWork(time.UnixMicro(t), time.Duration(d)*time.Microsecond).UnixMicro()
	}
	// Work done by the end of the period holding (or following) t, counted
	// from the span's start, then the period where the target falls: a
	// step's work ends in its own period or one of the next few, so a walk
	// forward finds it sooner than a search.
	t = max(t, w.start[i])
	target := w.before[i] + (t - w.start[i]) + d
	k := i
	for k < len(w.start) && w.before[k]+(w.end[k]-w.start[k]) < target {
		k++
	}
	if k >= len(w.start) {
		if w.own {
			n := len(w.start) - 1
			return w.beyond(w.to, target-(w.before[n]+w.end[n]-w.start[n]))
		}
		return w.cal.AddWork(time.UnixMicro(t), time.Duration(d)*time.Microsecond).UnixMicro()
	}
	return w.start[k] + (target - w.before[k])
}

// workTo is the work in the span from its start until t; for an own clock
// or inside the span only.
func (w *workClock) workTo(t int64) int64 {
	i := w.period(t)
	if i >= len(w.start) {
		if i == 0 {
			return 0
		}
		return w.before[i-1] + w.end[i-1] - w.start[i-1]
	}
	return w.before[i] + max(0, t-w.start[i])
}
