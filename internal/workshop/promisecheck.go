package workshop

import "time"

// PromiseRecheck is the longest a location that is open and has open jobs
// goes without a look of the promise watch: contract section 8 tells a
// turn that comes with time alone within 15 minutes of it.
const PromiseRecheck = 15 * time.Minute

// promiseRecheckFloor keeps the next look at least this far away: a plan
// starts at a whole minute, so an earlier look would see the same plan.
const promiseRecheckFloor = time.Minute

// NextPromiseCheck is when time alone could next turn one of the jobs of a
// plan made at now (issue 30): the watch looks at the location again then
// unless a change comes first. Zero means never: a location without open
// jobs has nothing time can turn. While the location is closed nothing
// moves (its plan starts at the next opening whatever the hour), so the
// next look is at that opening. While it is open, the earliest of
//   - PromiseRecheck from now;
//   - the end of the working period now is in (the plan's start then jumps
//     to the next opening);
//   - for each job on track with a promise, the moment its slack, counted
//     in working time, runs out: the plan's start moves with the working
//     time that passes, and no later start can make the job later by more.
//
// and never sooner than a minute from now.
func NextPromiseCheck(cal Calendar, now time.Time, jobs []JobOutlook) time.Time {
	if len(jobs) == 0 {
		return time.Time{}
	}
	w := cal.compile()
	if !w.open(now) {
		return w.nextOpen(now)
	}
	next := now.Add(PromiseRecheck)
	if !w.always {
		for p := range w.periodsFrom(now) {
			next = Earlier(next, p.End)
			break
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
