package workshop

import "slices"

// AssignFromPlan gives a step the plan's technicians and bay when it is
// pending and has neither (contract section 8: a step no longer pending
// or already assigned is left alone), with a later updatedAt; it tells
// whether the step took them.
func AssignFromPlan(st Step, techIDs []string, bayID string, now Micros) (Step, bool) {
	if st.Status != StepPending || len(st.TechIDs) > 0 || st.BayID != nil || (len(techIDs) == 0 && bayID == "") {
		return st, false
	}
	next := st
	next.TechIDs = slices.Clone(techIDs)
	if bayID != "" {
		next.BayID = &bayID
	}
	next.UpdatedAt = NextMicros(now.Time(), st.UpdatedAt)
	return next, true
}
