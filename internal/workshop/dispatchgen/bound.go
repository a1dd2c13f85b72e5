package dispatchgen

import (
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// LowerBound is a lower bound of the weighted late minutes of any feasible
// plan of in: each job alone, its steps at their earliest in working time
// after their predecessors and the job's earliest start, with no other job
// and no technician or bay to wait for. Every feasible plan places each
// step no earlier, so no job of it is less late. Jobs with a step no
// technician or bay could take count nothing (the planner leaves them
// unplaced, which the objective counts first).
func LowerBound(in workshop.DispatchInput) int {
	total := 0
	for i, end := range aloneEnds(in) {
		total += weightedLate(in.Jobs[i], end)
	}
	return total
}

// aloneEnds is each job's completion with no other job and no technician
// or bay to wait for: no plan completes it earlier.
func aloneEnds(in workshop.DispatchInput) []time.Time {
	cal := in.Calendar
	start := workshop.DispatchStart(in)
	var out []time.Time
	for _, j := range in.Jobs {
		earliest := start
		if j.ArrivalTime != nil && j.ArrivalTime.After(earliest) {
			earliest = *j.ArrivalTime
		}
		ends := map[string]time.Time{}
		var last time.Time
		for i, s := range j.Steps {
			var end time.Time
			switch s.Status {
			case workshop.StepCompleted:
				if s.CompletedAt != nil {
					end = *s.CompletedAt
				}
			case workshop.StepInProgress:
				end = later(cal.AddWork(*s.StartedAt, s.Duration), start)
			default:
				release := earliest
				if s.NotBefore != nil {
					release = later(release, *s.NotBefore)
				}
				for k, q := range j.Steps[:i] {
					if q.Phase < s.Phase || (s.Mode != "parallel" && q.Mode != "parallel" && q.Phase == s.Phase) {
						release = later(release, ends[j.Steps[k].ID])
					}
				}
				end = cal.AddWork(cal.NextOpen(release), s.Duration)
			}
			ends[s.ID] = end
			last = later(last, end)
		}
		out = append(out, last)
	}
	return out
}

// weightedLate is a job's weighted late minutes if it completes at end.
func weightedLate(j workshop.DispatchJob, end time.Time) int {
	return workshop.LateMinutes(j.PromiseTime, end) * workshop.PriorityWeight(j.Priority)
}

// FirstComeFirstServed is the simple dispatcher the plan is compared with:
// jobs by arrival (creation for a booking), each step to the earliest free
// qualified technician and suitable bay. It is the planner's own decoder
// of that order (Budget < 0), with no search.
func FirstComeFirstServed(in workshop.DispatchInput) workshop.Dispatch {
	in.Budget = -1
	return workshop.PlanDispatch(in)
}
