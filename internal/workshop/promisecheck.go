package workshop

import (
	"hash/fnv"
	"time"
)

// PromiseRecheck is the longest a location that is open and has open jobs
// goes without a look of the promise watch: contract section 8 tells a
// turn that comes with time alone within 15 minutes of it.
const PromiseRecheck = 15 * time.Minute

// promiseRecheckFloor keeps the next look at least this far away: a plan
// starts at a whole minute, so an earlier look would see the same plan.
const promiseRecheckFloor = time.Minute

// promiseSlots is the cycle of a location's looks by time alone: a
// location's own slot recurs every promiseSlots, so that a look set at
// least promiseRecheckFloor ahead falls within PromiseRecheck.
const promiseSlots = PromiseRecheck - promiseRecheckFloor

// PromiseSpread is a location's own offset in the watch's cycle, from a
// hash of its id, below promiseSlots: locations changed together, or
// opening together, are looked at again spread over the cycle rather
// than all in one second (issue 45's herd).
func PromiseSpread(locationID string) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(locationID))
	return time.Duration(h.Sum64()%uint64(promiseSlots/time.Millisecond)) * time.Millisecond
}

// NextPromiseCheck is when time alone could next turn one of the jobs of a
// plan made at now: the watch looks at the location again then unless a
// change comes first. Zero means never: a location without open jobs has
// nothing time can turn. It is the earliest of
//   - for each job on track with a promise, the moment its slack, counted
//     in working time, runs out (the plan's start moves with the working
//     time that passes, and no later start can make the job later by more;
//     while closed, working time starts at the opening), exactly;
//   - while closed, the next opening, plus spread (PromiseSpread): nothing
//     moves while closed, and what turns after the opening is caught by
//     the slack above;
//   - while open, the end of the working period now is in (the plan's
//     start then jumps to the next opening), plus spread, and the
//     location's own slot of the cycle (spread modulo promiseSlots from
//     the Unix epoch) after a minute from now, which is at most
//     PromiseRecheck from now;
//
// and never sooner than a minute from now.
func NextPromiseCheck(cal Calendar, now time.Time, jobs []JobOutlook, spread time.Duration) time.Time {
	if len(jobs) == 0 {
		return time.Time{}
	}
	w := cal.compile()
	var next time.Time
	if !w.open(now) {
		next = w.nextOpen(now).Add(spread)
	} else {
		next = nextSlot(now.Add(promiseRecheckFloor), spread)
		if !w.always {
			for p := range w.periodsFrom(now) {
				next = Earlier(next, p.End.Add(spread))
				break
			}
		}
	}
	for _, o := range jobs {
		if o.AtRisk || o.PromiseTime == nil || o.ProjectedCompletion == nil {
			continue
		}
		slack := w.workBetween(*o.ProjectedCompletion, *o.PromiseTime)
		next = Earlier(next, w.addWork(now, slack))
	}
	return Later(next, now.Add(promiseRecheckFloor))
}

// nextSlot is the first instant from t at spread (modulo promiseSlots)
// after a whole number of cycles since the Unix epoch.
func nextSlot(t time.Time, spread time.Duration) time.Time {
	cycle := int64(promiseSlots)
	phase := int64(spread) % cycle
	since := t.UnixNano() - phase
	k := since / cycle
	if since%cycle != 0 {
		k++
	}
	return time.Unix(0, k*cycle+phase).In(t.Location())
}
