package simulate

import (
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// dispatch starts what the policy starts at now. Either policy also
// computes its plan, the one its quotes are made from, counts its moves
// from the plan before, and makes it the anchor (each plan is read).
func (r *run) dispatch(now time.Time) {
	in := r.input(now)
	plan := r.planOf(in)
	before := r.anchorNow()
	r.churn(plan, before)
	a := workshop.AnchorOf(in, plan, before)
	r.anchor, r.changed = &a, false
	if r.policy == PolicyFCFS {
		r.firstComeFirstServed(now)
		return
	}
	r.applyPlan(now, plan)
}

// churn counts the pending steps the anchor placed that are still pending,
// and those of them plan moved as the contract counts moves: unplaced,
// another technician or bay, or a start more than 15 minutes after the
// announced one. Started steps are facts, not counted.
func (r *run) churn(plan workshop.Dispatch, anchor *workshop.DispatchAnchor) {
	if anchor == nil {
		return
	}
	placed := map[string]workshop.PlannedStep{}
	for _, ps := range plan.Steps {
		placed[ps.StepID] = ps
	}
	for _, s := range anchor.Steps {
		r.compared++
		if workshop.Moved(s, placed[s.StepID]) {
			r.moved++
		}
	}
}

// applyPlan starts the steps the plan starts now, on its technician and
// bay, when the vehicle is there and they are free (a step running over
// its planned length still holds them); the next planned start is looked
// at again when it comes. As on a real shop floor, a technician with
// nothing to do takes their next planned step early when it is also its
// bay's next and it can start (vehicle there, what it waits for done, the
// bay free): nothing planned before it on either is delayed, and the
// time the plan held them idle is not lost when work ran short. A
// technician still idle then fills the gap (fillGaps).
func (r *run) applyPlan(now time.Time, plan workshop.Dispatch) {
	defer r.fillGaps(now, plan)
	steps := r.stepsByID()
	seenTech, seenBay := map[string]bool{}, map[string]bool{}
	for _, ps := range plan.Steps { // by planned start
		if ps.Pinned {
			continue
		}
		next := len(ps.TechIDs) == 1 && !seenTech[ps.TechIDs[0]] && (ps.BayID == "" || !seenBay[ps.BayID])
		for _, t := range ps.TechIDs {
			seenTech[t] = true
		}
		seenBay[ps.BayID] = true
		if ps.Start.After(now) && !next {
			r.waitUntil(now, ps.Start)
			continue
		}
		s := steps[ps.StepID]
		if s == nil || !s.job.arrived || !r.predecessorsDone(s) || len(ps.TechIDs) != 1 || r.techOn[ps.TechIDs[0]] != nil ||
			r.away(ps.TechIDs[0], now) || !r.bayFree(now, ps.BayID, s.job) || !r.w.Calendar.Open(now) {
			if ps.Start.After(now) {
				r.waitUntil(now, ps.Start)
			}
			continue
		}
		r.start(now, s, r.tech(ps.TechIDs[0]), ps.BayID)
	}
}

// fillGaps is the dispatcher's use of a plan's gaps: a technician with
// nothing to do starts, of the ready steps the plan has not started (in
// its order), the first they can do that ends, by its planned length,
// before their own next planned start, in a free suitable bay (its
// planned one first) that it leaves free, buffer kept, before that bay's
// next planned start. No planned start is delayed by it; the next plan
// takes the step as a fact.
func (r *run) fillGaps(now time.Time, plan workshop.Dispatch) {
	if !r.w.Calendar.Open(now) {
		return
	}
	steps := r.stepsByID()
	nextOn := func(id string, onBay bool, except string) time.Time { // the next planned start on a technician or bay
		for _, ps := range plan.Steps {
			if ps.StepID != except && !ps.Start.Before(now) && steps[ps.StepID] != nil && steps[ps.StepID].status == workshop.StepPending &&
				(onBay && ps.BayID == id || !onBay && slices.Contains(ps.TechIDs, id)) {
				return ps.Start
			}
		}
		return time.Time{}
	}
	fits := func(end, next time.Time) bool { return next.IsZero() || !end.After(next) }
	for i := range r.w.Techs {
		t := &r.w.Techs[i]
		if r.techOn[t.ID] != nil || r.away(t.ID, now) {
			continue
		}
		for _, ps := range plan.Steps {
			s := steps[ps.StepID]
			if s == nil || s.status != workshop.StepPending || !s.job.arrived || !r.predecessorsDone(s) || !hasAll(t.Skills, s.service.Skills) {
				continue
			}
			end := r.workOf(t.ID).AddWork(now, r.w.Calendar.WorkBetween(ps.Start, ps.End))
			if !fits(end, nextOn(t.ID, false, ps.StepID)) {
				continue
			}
			bay, ok := r.gapBay(now, s, ps.BayID, func(b string) bool {
				return fits(r.w.Calendar.AddWork(end, r.w.BayBuffer), nextOn(b, true, ps.StepID))
			})
			if ok {
				r.start(now, s, t, bay)
				break
			}
		}
	}
}

// gapBay is a free suitable bay for s at now that leaves ok: its planned
// one first; "" and true in a workshop without bays.
func (r *run) gapBay(now time.Time, s *step, planned string, ok func(bay string) bool) (string, bool) {
	if len(r.w.Bays) == 0 {
		return "", true
	}
	if planned != "" && r.bayFree(now, planned, s.job) && ok(planned) {
		return planned, true
	}
	for _, b := range r.w.Bays {
		if (len(b.Services) == 0 || slices.Contains(b.Services, s.service.Code)) && r.bayFree(now, b.ID, s.job) && ok(b.ID) {
			return b.ID, true
		}
	}
	return "", false
}

// firstComeFirstServed starts, in working time, the ready steps of the
// vehicles there in order of arrival, each with the first qualified free
// technician and the first suitable free bay.
func (r *run) firstComeFirstServed(now time.Time) {
	if !r.w.Calendar.Open(now) {
		r.waitUntil(now, r.w.Calendar.NextOpen(now))
		return
	}
	jobs := slices.Clone(r.jobs)
	slices.SortStableFunc(jobs, func(a, b *job) int { return a.spec.Arrival.Compare(b.spec.Arrival) })
	for _, j := range jobs {
		if !j.arrived || j.cancelled || !j.ready.IsZero() {
			continue
		}
		for _, s := range j.steps {
			if s.status != workshop.StepPending || !r.predecessorsDone(s) {
				continue
			}
			tech := r.freeTech(now, s)
			bay, ok := r.freeBay(now, s)
			if tech != nil && ok {
				r.start(now, s, tech, bay)
			}
		}
	}
}

// predecessorsDone: every step of a lower phase has ended, and in its
// phase every sequential step before a sequential one.
func (r *run) predecessorsDone(s *step) bool {
	for _, q := range s.job.steps {
		if q == s {
			break
		}
		waits := q.spec.Phase < s.spec.Phase || (q.spec.Mode != "parallel" && s.spec.Mode != "parallel")
		if waits && q.status != workshop.StepCompleted {
			return false
		}
	}
	return true
}

func (r *run) freeTech(now time.Time, s *step) *Tech {
	for i := range r.w.Techs {
		t := &r.w.Techs[i]
		if r.techOn[t.ID] == nil && !r.away(t.ID, now) && hasAll(t.Skills, s.service.Skills) {
			return t
		}
	}
	return nil
}

// freeBay is the first suitable free bay; "" and true in a workshop
// without bays.
func (r *run) freeBay(now time.Time, s *step) (string, bool) {
	for _, b := range r.w.Bays {
		if (len(b.Services) == 0 || slices.Contains(b.Services, s.service.Code)) && r.bayFree(now, b.ID, s.job) {
			return b.ID, true
		}
	}
	return "", len(r.w.Bays) == 0
}

func (r *run) tech(id string) *Tech {
	for i := range r.w.Techs {
		if r.w.Techs[i].ID == id {
			return &r.w.Techs[i]
		}
	}
	return nil
}

func (r *run) stepsByID() map[string]*step {
	out := map[string]*step{}
	for _, j := range r.jobs {
		for _, s := range j.steps {
			out[s.spec.ID] = s
		}
	}
	return out
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}
