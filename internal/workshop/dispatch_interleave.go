package workshop

import "slices"

// decodeInterleaved places the steps one at a time instead of job by job:
// of the steps whose predecessors are placed, the one that can start
// earliest goes first, ties to its job's place in order, then its own. A
// dispatcher starts work that way, and it interleaves the steps of several
// jobs where the job-by-job decode reserves a technician for one job's
// later step and leaves the gap before it idle. Each step placed weighs
// every step that could go next, so it costs the square of the steps:
// the search uses it only where that fits its budget (interleaveFits).
func (p *problem) decodeInterleaved(order []int, rule int) decoded {
	d := decoded{order: order, places: make([][]placement, len(p.jobs))}
	r := p.fixed.clone()
	rank := make([]int, len(p.jobs))
	var open []stepRef // not fixed, not placed yet, by job order
	for pos, ji := range order {
		rank[ji] = pos
		pj := &p.jobs[ji]
		d.places[ji] = make([]placement, len(pj.steps))
		for si, s := range pj.steps {
			if s.fixed {
				d.places[ji][si] = s.pre
			} else {
				open = append(open, stepRef{ji, si})
			}
		}
	}
	decided := func(ref stepRef) bool { // fixed, placed, or left unplaced
		return p.jobs[ref.job].steps[ref.step].fixed || slices.Index(open, ref) < 0
	}
	for len(open) > 0 {
		next, best := -1, placement{}
		for i, ref := range open {
			ready := true
			for _, k := range p.jobs[ref.job].steps[ref.step].after {
				ready = ready && decided(stepRef{ref.job, k})
			}
			if !ready {
				continue
			}
			pl := p.placeStep(&p.jobs[ref.job], ref.step, d.places[ref.job], &r, rule)
			if pl.reason != "" { // unplaced: nothing to wait for
				next, best = i, pl
				break
			}
			if next < 0 || pl.start < best.start || pl.start == best.start && rank[ref.job] < rank[open[next].job] {
				next, best = i, pl
			}
		}
		ref := open[next]
		open = slices.Delete(open, next, next+1)
		d.places[ref.job][ref.step] = best
		if best.reason == "" {
			p.take(&r, best.techs, best.bay, best.start, best.end, p.jobs[ref.job].job.ID)
		}
	}
	d.score, d.parts = p.scoreOf(d.places)
	return d
}

// interleaveSteps bounds the steps to place for which the search also
// decodes interleaved: a decode then weighs at most about 40 x 40 / 2
// placements, a small share of the budget.
const interleaveSteps = 40

// interleaveFits: the problem is small enough to decode interleaved.
func (p *problem) interleaveFits() bool {
	n := 0
	for _, pj := range p.jobs {
		for _, s := range pj.steps {
			if !s.fixed {
				n++
			}
		}
	}
	return n <= interleaveSteps
}
