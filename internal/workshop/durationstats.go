package workshop

// Durations learned from the shop floor (contract section 9): how long a
// service really takes at a location, from the steps of it that ended in
// the last 90 days. The store gathers the samples; these rules turn them
// into the figures every reader (API, MCP, application, planner and the
// simulator) shows and uses.

import (
	"slices"
	"time"
)

// DurationHistory is how far back a step's actual end may lie to be a
// sample: the last 90 days, counted as 90 x 24 hours before now.
const DurationHistory = 90 * 24 * time.Hour

// MinDurationSamples is the fewest samples that give percentiles: below
// it p50 and p80 are null and the planner keeps the estimate.
const MinDurationSamples = 5

// DurationStats is a catalog item's learned duration, whole minutes.
type DurationStats struct {
	Samples int  `json:"samples"`
	P50     *int `json:"p50"`
	P80     *int `json:"p80"`
}

// DurationStatsOf is the statistics of samples (working minutes, any
// order): their count and, from MinDurationSamples on, the 50th and 80th
// percentiles by nearest rank (the value at rank ceil(p x n / 100) of the
// sorted samples, so always one that happened). samples is not modified.
func DurationStatsOf(samples []int) DurationStats {
	st := DurationStats{Samples: len(samples)}
	if len(samples) < MinDurationSamples {
		return st
	}
	sorted := slices.Sorted(slices.Values(samples))
	st.P50, st.P80 = nearestRank(sorted, 50), nearestRank(sorted, 80)
	return st
}

// nearestRank is the p-th percentile of sorted (not empty), in integers so
// that 80 % of 5 is exactly rank 4.
func nearestRank(sorted []int, p int) *int {
	rank := max((p*len(sorted)+99)/100, 1)
	v := sorted[rank-1]
	return &v
}

// StepWorkMinutes is one sample: the working time of the location's calendar
// between a step's actual start and end, in whole minutes rounded up; the
// wall-clock time when the step ran entirely outside working hours (a car
// finished on a Sunday still took that long). 0 when end is not after
// start.
func StepWorkMinutes(cal Calendar, start, end time.Time) int {
	if !end.After(start) {
		return 0
	}
	d := cal.WorkBetween(start, end)
	if d == 0 {
		d = end.Sub(start)
	}
	return minutesUp(d)
}

// InDurationHistory reports whether a step that ended at end is a sample
// at now: its end lies in the last DurationHistory.
func InDurationHistory(end, now time.Time) bool {
	return end.After(now.Add(-DurationHistory))
}

// Planning durations: the setting planningDurations, which duration the
// plan and the availability quote give a step.
const (
	PlanWithEstimate = "estimate" // the default: every step its estimatedDuration
	PlanWithP50      = "p50"
	PlanWithP80      = "p80"
)

// PlanningDurationsValues lists the setting's values.
var PlanningDurationsValues = []string{PlanWithEstimate, PlanWithP50, PlanWithP80}

// PlanningMinutes is the duration the plan gives a step of a catalog item
// that is not completed: with planningDurations p50 or p80, the item's
// percentile when the step's estimate is still the item's (a person's own
// estimate wins) and the item has it (MinDurationSamples); otherwise the
// step's estimate. Steps without a catalog item always plan with their
// estimate and need not ask.
func PlanningMinutes(planningDurations string, stepEstimate, itemEstimate int, stats DurationStats) int {
	if stepEstimate != itemEstimate {
		return stepEstimate
	}
	var learned *int
	switch planningDurations {
	case PlanWithP50:
		learned = stats.P50
	case PlanWithP80:
		learned = stats.P80
	}
	if learned == nil {
		return stepEstimate
	}
	return *learned
}
