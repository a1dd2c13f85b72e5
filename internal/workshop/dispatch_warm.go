package workshop

import (
	"slices"
)

// warmStart is the anchor's plan as far as it still holds, the search's
// first candidate (contract section 8: a re-plan with nothing changed is
// never worse than the anchor). Each placement of the anchor whose
// technicians and bay the step may still have is kept, by anchored start:
// on them, at its anchored start or the plan's start when that is later,
// or as little later as the steps placed before it push it (a minute's
// push can carry a step past a break: it stays where it is, and so does
// the work after it). Every other step is then placed around them, job by
// job by promise, on its anchor's technicians and bay where that is no
// move.
func (p *problem) warmStart() decoded {
	d := decoded{places: make([][]placement, len(p.jobs))}
	decided := make([][]bool, len(p.jobs))
	r := p.fixed.clone()
	var queue []stepRef
	for ji := range p.jobs {
		pj := &p.jobs[ji]
		d.places[ji] = make([]placement, len(pj.steps))
		decided[ji] = make([]bool, len(pj.steps))
		for si, s := range pj.steps {
			switch {
			case s.fixed:
				d.places[ji][si], decided[ji][si] = s.pre, true
			case s.anchor != nil:
				queue = append(queue, stepRef{ji, si})
			}
		}
	}
	slices.SortStableFunc(queue, func(x, y stepRef) int {
		return cmp64(p.jobs[x.job].steps[x.step].anchor.start, p.jobs[y.job].steps[y.step].anchor.start)
	})
	for _, ref := range queue {
		pj := &p.jobs[ref.job]
		s := &pj.steps[ref.step]
		if p.ownReason(*s) != "" || !p.usable(s) {
			continue
		}
		release, placeable := max(s.earliest, s.afterEnd), true
		for _, k := range s.after {
			placeable = placeable && decided[ref.job][k] && d.places[ref.job][k].reason == ""
			release = max(release, d.places[ref.job][k].end)
		}
		if !placeable {
			continue
		}
		want := max(s.anchor.start, p.start)
		techs, bay := p.techIndexes(s.anchor.techs), p.bayChoice(s.anchor.bay)
		start := p.fit(max(release, want), s.dur, techs, bay, s.job, &r)
		end := p.clockOf(techs, bay).addWork(start, s.dur)
		if end > p.horizon {
			continue // pushed out of the plan: placed with the rest
		}
		p.placements++
		p.take(&r, s.anchor.techs, s.anchor.bay, start, end, pj.job.ID)
		d.places[ref.job][ref.step], decided[ref.job][ref.step] = placement{techs: s.anchor.techs, bay: s.anchor.bay, start: start, end: end}, true
	}
	p.stick = true
	for _, ji := range p.earliestDueDate() {
		p.placeRest(&p.jobs[ji], d.places[ji], decided[ji], &r, tieListed)
	}
	p.stick = false
	return p.compact(d)
}

// compact starts every placed step that is not fixed as early as its
// technicians, its bay and the steps it waits for allow, keeping them,
// in order of start: no job ends later, no step changes technicians or
// bay or starts later, so no term of the objective grows, and the gaps a
// search leaves behind close.
func (p *problem) compact(d decoded) decoded {
	var order []stepRef
	for ji := range p.jobs {
		for si, s := range p.jobs[ji].steps {
			if !s.fixed && d.places[ji][si].reason == "" {
				order = append(order, stepRef{ji, si})
			}
		}
	}
	slices.SortStableFunc(order, func(x, y stepRef) int {
		return cmp64(d.places[x.job][x.step].start, d.places[y.job][y.step].start)
	})
	out := decoded{order: d.order, places: slices.Clone(d.places)}
	copied := make([]bool, len(p.jobs))
	r := p.fixed.clone()
	for _, ref := range order {
		pj := &p.jobs[ref.job]
		s := &pj.steps[ref.step]
		if !copied[ref.job] {
			out.places[ref.job], copied[ref.job] = slices.Clone(out.places[ref.job]), true
		}
		pl := &out.places[ref.job][ref.step]
		release := max(s.earliest, s.afterEnd)
		for _, k := range s.after {
			release = max(release, out.places[ref.job][k].end)
		}
		techs, bay := p.techIndexes(pl.techs), p.bayChoice(pl.bay)
		if start := p.fit(release, s.dur, techs, bay, s.job, &r); start < pl.start {
			pl.start, pl.end = start, p.clockOf(techs, bay).addWork(start, s.dur)
		}
		p.take(&r, pl.techs, pl.bay, pl.start, pl.end, pj.job.ID)
	}
	out.score, out.parts = p.scoreOf(out.places)
	return out
}
