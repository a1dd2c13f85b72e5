package workshop

import (
	"slices"
	"time"
)

// When one technician or bay works (contract section 8): the location's
// working time, within a technician's weekly hours, outside their absences
// or the bay's maintenance windows. It is the one answer to that question:
// the planner, the quote, the capacity, the simulator and the exact-optimum
// harness all ask WorkPeriods. Time outside it is non-working time for that
// technician or bay only, as closed hours are for everyone: a step may span
// it, and its length is counted in the working time of all its resources.

// WorkTime is what makes one technician's or bay's working time differ
// from the location's.
type WorkTime struct {
	// Hours is a technician's week (nil: all of the location's working
	// time; empty: none). Where it overlaps the location's working time
	// they work.
	Hours []WeeklyHours
	// Away are absences (technicians) or maintenance windows (bays), in
	// any order; they may overlap.
	Away []Interval
}

// Own reports whether w differs from the location's working time at all.
func (w WorkTime) Own() bool { return w.Hours != nil || len(w.Away) > 0 }

// WorkPeriods are the working periods, in order, that a technician or bay
// with w has between from and to (clipped to them).
func (c Calendar) WorkPeriods(w WorkTime, from, to time.Time) []Interval {
	if !to.After(from) {
		return nil
	}
	week := c.compile()
	if w.Hours != nil {
		week = week.within(w.Hours)
	}
	var periods []Interval
	if week.always {
		periods = []Interval{{from, to}}
	} else if !week.never() {
		for p := range week.periodsFrom(from) {
			if !p.Start.Before(to) {
				break
			}
			periods = append(periods, Interval{Later(p.Start, from), Earlier(p.End, to)})
		}
	}
	return withoutIntervals(periods, w.Away)
}

// WorkMinutes is the working time, in whole minutes (rounded down), of w
// between from and to.
func (c Calendar) WorkMinutes(w WorkTime, from, to time.Time) int {
	var sum time.Duration
	for _, p := range c.WorkPeriods(w, from, to) {
		sum += p.End.Sub(p.Start)
	}
	return int(sum / time.Minute)
}

// within is the week w narrowed to a technician's hours: where both work.
// A location without working time (always) works the technician's hours.
func (w *workWeek) within(hours []WeeklyHours) *workWeek {
	var own [7][]span
	for _, h := range hours {
		if d, s, ok := daySpan(h.Day, h.Start, h.End); ok {
			own[d] = append(own[d], s)
		}
	}
	out := &workWeek{zone: w.zone}
	for d := range out.days {
		own[d] = merge(own[d])
		if w.always {
			out.days[d] = own[d]
		} else {
			out.days[d] = subtract(w.days[d], subtract(w.days[d], own[d])) // both
		}
	}
	return out
}

// never: the week has no working time and is not "always" (a technician
// whose hours never meet the location's): periodsFrom would never yield.
func (w *workWeek) never() bool {
	return !w.always && !slices.ContainsFunc(w.days[:], func(d []span) bool { return len(d) > 0 })
}

// withoutIntervals cuts the away intervals out of the ordered, disjoint
// periods.
func withoutIntervals(periods, away []Interval) []Interval {
	if len(away) == 0 || len(periods) == 0 {
		return periods
	}
	away = slices.Clone(away)
	slices.SortFunc(away, func(a, b Interval) int { return a.Start.Compare(b.Start) })
	var out []Interval
	for _, p := range periods {
		from := p.Start
		for _, a := range away {
			if !a.End.After(from) || !a.Start.Before(p.End) {
				continue
			}
			if a.Start.After(from) {
				out = append(out, Interval{from, a.Start})
			}
			from = Later(from, a.End)
		}
		if from.Before(p.End) {
			out = append(out, Interval{from, p.End})
		}
	}
	return out
}

// Shift is when a set of technicians and a bay all work, laid out once
// over a span (the planner's own rule, for those that check or bound a
// plan: dispatchcheck, dispatchgen). Past its span, a shift of resources
// with working time of their own does not work; the location's asks the
// calendar.
type Shift struct {
	w    *workClock
	zone *time.Location
}

// Shift lays out, over [from, to), when every resource with works works.
func (c Calendar) Shift(from, to time.Time, works ...WorkTime) Shift {
	return Shift{w: c.shiftClock(from, to, works...), zone: c.zone()}
}

func (c Calendar) shiftClock(from, to time.Time, works ...WorkTime) *workClock {
	var own *workClock
	for _, w := range works {
		if !w.Own() {
			continue
		}
		o := ownClock(c, c.WorkPeriods(w, from, to), from, to)
		if own != nil {
			o = both(own, o)
		}
		own = o
	}
	if own == nil {
		return newWorkClock(c, from, to)
	}
	return own
}

// Open reports whether t is working time for all of them.
func (s Shift) Open(t time.Time) bool { return s.w.nextOpen(t.UnixMicro()) == t.UnixMicro() }

// NextOpen is t when it is working time, else the next that is.
func (s Shift) NextOpen(t time.Time) time.Time { return s.at(s.w.nextOpen(t.UnixMicro())) }

// AddWork is when d of their working time from t has passed.
func (s Shift) AddWork(t time.Time, d time.Duration) time.Time {
	return s.at(s.w.addWork(t.UnixMicro(), int64(d/time.Microsecond)))
}

// WorkBetween is their working time between a and b.
func (s Shift) WorkBetween(a, b time.Time) time.Duration {
	if !s.w.own {
		return s.w.cal.WorkBetween(a, b)
	}
	if !b.After(a) {
		return 0
	}
	return time.Duration(s.w.workTo(b.UnixMicro())-s.w.workTo(a.UnixMicro())) * time.Microsecond
}

func (s Shift) at(t int64) time.Time { return time.UnixMicro(t).In(s.zone) }

// WorkOf is the own working time of the technicians and the bay (by id;
// "" none) of in, for a Shift of when they all work.
func (in DispatchInput) WorkOf(techIDs []string, bayID string) []WorkTime {
	var works []WorkTime
	for _, t := range in.Techs {
		if slices.Contains(techIDs, t.ID) {
			works = append(works, t.Work)
		}
	}
	for _, b := range in.Bays {
		if bayID != "" && b.ID == bayID {
			works = append(works, b.Work)
		}
	}
	return works
}
