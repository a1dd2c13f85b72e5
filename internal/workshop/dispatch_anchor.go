package workshop

import (
	"slices"
	"time"
)

// Re-plans move little near now (contract section 8): the anchor is the
// last plan for today computed for a reader. A pending step it placed to
// start within the first KeptWindow of working time after its start keeps,
// in every later plan, its technicians, its bay and its start to within
// KeptTolerance (or the later plan's start, when that is later), while that
// placement stays feasible. Kept placements are fixed after the scheduled
// steps and before any decode, so the objective is minimised subject to
// them; among plans equal in the objective's three terms the one that
// moves the fewest steps from the anchor wins.

// KeptWindow is the working time after the anchor's start in which its
// placements are kept.
const KeptWindow = 60 * time.Minute

// KeptTolerance is how far a kept step's start may move either way; a
// step further away (or on another technician or bay) has moved.
const KeptTolerance = 15 * time.Minute

// DispatchAnchor is the plan a later plan stays near.
type DispatchAnchor struct {
	Start time.Time // the anchor's start
	// Steps are the pending steps it placed. The caller leaves out those
	// written to since (any write to a step frees it).
	Steps []AnchorStep
}

// AnchorStep is where the anchor placed a pending step.
type AnchorStep struct {
	StepID  string
	TechIDs []string
	BayID   string // "" none
	Start   time.Time
}

// AnchorOf is the anchor a plan makes: its pending steps' placements (the
// steps in progress are facts, not placements).
func AnchorOf(in DispatchInput, d Dispatch) DispatchAnchor {
	inProgress := map[string]bool{}
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			if s.Status == StepInProgress {
				inProgress[s.ID] = true
			}
		}
	}
	a := DispatchAnchor{Start: d.Start, Steps: []AnchorStep{}}
	for _, s := range d.Steps {
		if !inProgress[s.StepID] {
			a.Steps = append(a.Steps, AnchorStep{StepID: s.StepID, TechIDs: slices.Clone(s.TechIDs), BayID: s.BayID, Start: s.Start})
		}
	}
	return a
}

// anchored is a pending step's placement in the anchor.
type anchored struct {
	techs []string
	bay   string
	start int64
}

// anchorSteps gives each pending step of the problem its anchor placement.
func (p *problem) anchorSteps() {
	a := p.in.Anchor
	if a == nil {
		return
	}
	byID := make(map[string]AnchorStep, len(a.Steps))
	for _, s := range a.Steps {
		byID[s.StepID] = s
	}
	for ji := range p.jobs {
		for si := range p.jobs[ji].steps {
			s := &p.jobs[ji].steps[si]
			if as, ok := byID[s.ID]; ok && !s.inProgress {
				s.anchor = &anchored{techs: as.TechIDs, bay: as.BayID, start: micros(as.Start)}
			}
		}
	}
}

// placeKept fixes the anchor's placements near now that stay feasible, by
// their anchored start: the technicians and bay still qualified, usable
// and assigned as they were, every step it waits for fixed, and a free
// start within the tolerance of the anchored one (or at the plan's start),
// the anchored one itself when it is free.
func (p *problem) placeKept() {
	a := p.in.Anchor
	if a == nil {
		return
	}
	window := micros(p.cal.AddWork(a.Start, KeptWindow))
	tolerance := int64(KeptTolerance / time.Microsecond)
	var queue []stepRef
	for ji := range p.jobs {
		for si, s := range p.jobs[ji].steps {
			if s.anchor != nil && !s.fixed && s.anchor.start < window {
				queue = append(queue, stepRef{ji, si})
			}
		}
	}
	slices.SortStableFunc(queue, func(x, y stepRef) int {
		return cmp64(p.jobs[x.job].steps[x.step].anchor.start, p.jobs[y.job].steps[y.step].anchor.start)
	})
	for _, r := range queue {
		pj := &p.jobs[r.job]
		s := &pj.steps[r.step]
		if !p.ready(r) || p.ownReason(*s) != "" || !p.usable(s) {
			continue
		}
		release, placeable := max(s.earliest, s.afterEnd), true
		for _, k := range s.after {
			placeable = placeable && pj.steps[k].pre.reason == ""
			release = max(release, pj.steps[k].pre.end)
		}
		if !placeable {
			continue
		}
		lo, hi := max(s.anchor.start-tolerance, p.start, release), max(s.anchor.start+tolerance, p.start)
		if lo > hi {
			continue
		}
		// Where it was if it is free there, else the nearest free start
		// before it within the tolerance.
		techs, bay := p.techIndexes(s.anchor.techs), p.bayChoice(s.anchor.bay)
		start := p.fit(max(lo, s.anchor.start), s.dur, techs, bay, s.job, &p.fixed)
		if start > hi {
			start = p.fit(lo, s.dur, techs, bay, s.job, &p.fixed)
		}
		end := p.clock.addWork(start, s.dur)
		if start > hi || end > p.horizon {
			continue
		}
		p.take(&p.fixed, s.anchor.techs, s.anchor.bay, start, end, pj.job.ID)
		s.fixed, s.pre = true, placement{techs: s.anchor.techs, bay: s.anchor.bay, start: start, end: end}
	}
}

// usable: the anchored technicians and bay are ones the step may have
// now: its own assigned ones, or for what is unassigned, qualified and
// available technicians and a suitable bay not in maintenance.
func (p *problem) usable(s *pstep) bool {
	if len(s.anchor.techs) == 0 {
		return false
	}
	if len(s.TechIDs) > 0 {
		if !slices.Equal(s.TechIDs, s.anchor.techs) {
			return false
		}
	} else {
		for _, t := range s.anchor.techs {
			if !slices.Contains(s.techs, t) {
				return false
			}
		}
	}
	switch {
	case s.BayID != "":
		return s.anchor.bay == s.BayID
	case len(p.bays) > 0:
		return slices.Contains(s.bays, s.anchor.bay)
	}
	return s.anchor.bay == ""
}

// movedFrom counts the anchored steps a decode moves: unplaced, on other
// technicians or another bay, or starting more than the tolerance away.
func (p *problem) movedFrom(d decoded) int {
	if p.in.Anchor == nil {
		return 0
	}
	tolerance := int64(KeptTolerance / time.Microsecond)
	n := 0
	for ji := range p.jobs {
		for si, s := range p.jobs[ji].steps {
			if s.anchor == nil {
				continue
			}
			pl := d.places[ji][si]
			if pl.reason != "" || pl.bay != s.anchor.bay || !slices.Equal(pl.techs, s.anchor.techs) ||
				pl.start < s.anchor.start-tolerance || pl.start > s.anchor.start+tolerance {
				n++
			}
		}
	}
	return n
}
