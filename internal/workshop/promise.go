package workshop

import "time"

// PromiseTurn is a job whose plan turned at risk or back on track
// (contract section 8: job.at_risk, job.on_track).
type PromiseTurn struct {
	Outlook JobOutlook
	Event   string // EventJobAtRisk or EventJobOnTrack
}

// PromiseTurns compares a location's new plan with whether each job was
// last seen at risk (wasAtRisk; a job not in it was not) and returns the
// jobs that turned, in the plan's order. A job that left the plan (it was
// delivered, cancelled or finished) turns nowhere: its own event tells.
func PromiseTurns(wasAtRisk map[string]bool, plan []JobOutlook) []PromiseTurn {
	var turns []PromiseTurn
	for _, o := range plan {
		if o.AtRisk == wasAtRisk[o.JobID] {
			continue
		}
		event := EventJobOnTrack
		if o.AtRisk {
			event = EventJobAtRisk
		}
		turns = append(turns, PromiseTurn{Outlook: o, Event: event})
	}
	return turns
}

// ProjectedCompletionText is the stored form of an outlook's projected
// completion (RFC 3339 with the location's offset), nil when unplaced.
func (o JobOutlook) ProjectedCompletionText() *string {
	if o.ProjectedCompletion == nil {
		return nil
	}
	s := o.ProjectedCompletion.Format(time.RFC3339Nano)
	return &s
}

// Late is "late" wherever it is shown: the job has a promise that has
// passed at at, and it is not ready (nor delivered or cancelled). It is
// the board's count and marks (store/board.go keeps its count in SQL: the
// late_tally of migration 00010 and the query beside it count this rule,
// by promise day), the day close's missed promises, and the job detail's
// at risk for a job outside the plan. "At risk" is the plan's rule
// (JobOutlook.AtRisk): late, or projected after the promise, or unplaced.
func Late(status string, promise *OffsetTime, at time.Time) bool {
	return promise != nil && promise.Before(at) && status != JobReady && status != JobDelivered && status != JobCancelled
}
