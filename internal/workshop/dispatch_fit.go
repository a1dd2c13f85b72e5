package workshop

import (
	"slices"
	"time"
)

// busy is a stretch a technician or bay is taken, by a job (its index,
// problem.jobIndex).
type busy struct {
	start, end int64
	bufEnd     int64 // bays: end plus the bay buffer in working time
	job        int32
}

// resources are the busy times of every technician and bay, by their
// index (problem.techIndex, problem.bayIndex): the planner asks them
// thousands of times a plan, and a slice answers faster than a map.
type resources struct{ tech, bay []timeline }

func (r resources) clone() resources {
	out := resources{tech: make([]timeline, len(r.tech)), bay: make([]timeline, len(r.bay))}
	for i, tl := range r.tech {
		out.tech[i] = tl.clone()
	}
	for i, tl := range r.bay {
		out.bay[i] = tl.clone()
	}
	return out
}

// timelineAt is list's i-th timeline, grown to hold it.
func timelineAt(list *[]timeline, i int) *timeline {
	if i >= len(*list) {
		*list = append(*list, make([]timeline, i+1-len(*list))...)
	}
	return &(*list)[i]
}

// take marks technicians and a bay busy for a job's step.
func (p *problem) take(r *resources, techs []string, bayID string, start, end int64, job string) {
	j := p.jobIndex(job)
	for _, t := range techs {
		timelineAt(&r.tech, p.techIndex(t)).insert(busy{start: start, end: end, bufEnd: end, job: j})
	}
	if bayID != "" {
		timelineAt(&r.bay, p.bayIndex(bayID)).insert(busy{start: start, end: end, bufEnd: p.clock.addWork(end, p.buffer), job: j})
	}
}

// untake frees what take took for a job's step.
func (p *problem) untake(r *resources, techs []string, bayID string, start int64, job string) {
	j := p.jobIndex(job)
	for _, t := range techs {
		r.tech[p.techIndex(t)].remove(start, j)
	}
	if bayID != "" {
		r.bay[p.bayIndex(bayID)].remove(start, j)
	}
}

// ownReason is why a pending step cannot be placed whatever the others:
// what a person assigned it is not there, nobody can do it, or no bay can
// take it; "" when it has both.
func (p *problem) ownReason(s pstep) string {
	switch {
	case slices.ContainsFunc(s.TechIDs, func(id string) bool { return p.away[id] }) || p.closedBay[s.BayID]:
		return UnplacedAssigned
	case len(s.TechIDs) == 0 && len(s.techs) == 0:
		return UnplacedNoTechnician
	case s.BayID == "" && len(p.bays) > 0 && len(s.bays) == 0:
		return UnplacedNoBay
	}
	return ""
}

// free is when a technician (set) or bay, by index, is free alone.
type free struct {
	i  int
	at int64
}

// place finds the technicians and bay that let a pending step end
// earliest from release, or why none can.
func (p *problem) place(s *pstep, release int64, r *resources, rule int) placement {
	if own := p.ownReason(*s); own != "" {
		return placement{reason: own}
	}
	if p.stick {
		if pl, ok := p.onAnchor(s, release, r); ok {
			return pl
		}
	}
	c := &s.choice[orderOf(rule)]
	// The earliest each could start alone bounds what a pair can: walk the
	// pairs by that bound and stop when none can start earlier than the
	// best found (a step's end only grows with its start).
	// techAlone and bayAlone are those starts by choice, techs and
	// bayFree the same sorted by time.
	techAlone, bayAlone := make([]int64, len(c.techSets)), make([]int64, len(c.bayChoices))
	techs := make([]free, len(c.techSets))
	for i, ts := range c.techSets {
		techs[i] = free{i, p.fit(release, s.dur, ts, -1, s.job, r)}
		techAlone[i] = techs[i].at
	}
	bayFree := make([]free, len(c.bayChoices))
	for i, b := range c.bayChoices {
		bayFree[i] = free{i, p.fit(release, s.dur, nil, b, s.job, r)}
		bayAlone[i] = bayFree[i].at
	}
	byTime := func(a, b free) int { return cmp64(a.at, b.at) }
	slices.SortStableFunc(techs, byTime)
	slices.SortStableFunc(bayFree, byTime)
	pair := func(tf, bf free) (placement, bool) {
		start := max(tf.at, bf.at) // without a bay, the technicians' own fit
		if b := c.bayChoices[bf.i]; b >= 0 {
			start = p.fit(start, s.dur, c.techSets[tf.i], b, s.job, r)
		}
		if start > p.horizon {
			return placement{}, false
		}
		end := p.clockOf(c.techSets[tf.i], c.bayChoices[bf.i]).addWork(start, s.dur)
		if end > p.horizon {
			return placement{}, false
		}
		return placement{techs: c.setIDs[tf.i], bay: c.bayIDs[bf.i], start: start, end: end}, true
	}
	best := placement{reason: UnplacedBeyond}
	for _, bf := range bayFree {
		if best.reason == "" && bf.at >= best.start {
			break
		}
		for _, tf := range techs {
			bound := max(tf.at, bf.at)
			if bound > p.horizon || best.reason == "" && bound >= best.start {
				break
			}
			if pl, ok := pair(tf, bf); ok && (best.reason != "" || pl.start < best.start) {
				best = pl
			}
		}
	}
	if rule == tieSpare && best.reason == "" {
		best = p.spare(c, best, techAlone, bayAlone, pair)
	}
	// Among equally early starts the anchor's technicians and bay win
	// (dispatch_anchor.go): a re-plan leaves a step where it was when
	// nothing is gained by moving it. Only the anchor's own pair can
	// start as early as the best and win, so only it is tried again.
	if s.anchor != nil && best.reason == "" && (best.bay != s.anchor.bay || !slices.Equal(best.techs, s.anchor.techs)) {
		ti := slices.IndexFunc(techs, func(f free) bool { return slices.Equal(c.setIDs[f.i], s.anchor.techs) })
		bi := slices.IndexFunc(bayFree, func(f free) bool { return c.bayIDs[f.i] == s.anchor.bay })
		if ti >= 0 && bi >= 0 && max(techs[ti].at, bayFree[bi].at) <= best.start {
			if pl, ok := pair(techs[ti], bayFree[bi]); ok && pl.start == best.start {
				best = pl
			}
		}
	}
	return best
}

// spareSlack is how much later than the earliest a step may start under
// tieSpare to leave a more wanted technician or bay free.
const spareSlack = int64(120 * time.Minute / time.Microsecond)

// spare is, of the pairs that start at most spareSlack after best, the
// one whose technicians and bay the other pending work wants least
// (weighDemand), the earlier among equals: a step a minute later on the
// technician anyone could be, rather than on the only one with brakes.
// techAt and bayAt are when each choice is free alone. The choices are listed least wanted first, so for each bay the first
// technicians that fit are its best pair, and a bay wanted more than the
// best pair found cannot beat it.
func (p *problem) spare(c *choiceSet, best placement, techAt, bayAt []int64, pair func(tf, bf free) (placement, bool)) placement {
	want := func(pl placement) float64 {
		w := p.bayDemand[pl.bay]
		for _, t := range pl.techs {
			w += p.techDemand[t]
		}
		return w
	}
	limit, bestWant := best.start+spareSlack, want(best)
	for bi := range c.bayIDs {
		if bayAt[bi] > limit || p.bayDemand[c.bayIDs[bi]] >= bestWant {
			continue
		}
		for ti := range c.setIDs {
			if max(techAt[ti], bayAt[bi]) > limit {
				continue
			}
			pl, ok := pair(free{ti, techAt[ti]}, free{bi, bayAt[bi]})
			if !ok || pl.start > limit {
				continue
			}
			if w := want(pl); w < bestWant || w == bestWant && pl.start < best.start {
				best, bestWant = pl, w
			}
			break // the technicians after it are wanted more
		}
	}
	return best
}

// fit is the earliest start from t at which a step of job and duration d
// is free on the technicians and bay (-1: none) given, by index, in
// their working time; past the horizon when there is none before it.
func (p *problem) fit(t, d int64, techs []int, bay int, job int32, r *resources) int64 {
	clock := p.clockOf(techs, bay)
	for {
		t = clock.nextOpen(t)
		if t > p.horizon {
			return t
		}
		end := clock.addWork(t, d)
		moved := false
		for _, i := range techs {
			if i < len(r.tech) {
				if to, ok := r.tech[i].conflict(t, end, end, job, false); ok {
					t, moved = max(t, to), true
				}
			}
		}
		if bay >= 0 && bay < len(r.bay) {
			endBuf := end
			if p.buffer > 0 {
				endBuf = p.clock.addWork(end, p.buffer)
			}
			if to, ok := r.bay[bay].conflict(t, end, endBuf, job, p.buffer > 0); ok {
				t, moved = max(t, to), true
			}
		}
		if !moved {
			return t
		}
	}
}

// timeline is a technician's or bay's busy stretches by start, with the
// latest end (bufEnd for bays) of each prefix, so that a fit looks only at
// the stretches that can be in its way.
type timeline struct {
	list   []busy
	maxEnd []int64 // maxEnd[i]: the latest bufEnd of list[:i+1]
}

// startingFrom is the index of the first stretch starting at or after t.
// Written out rather than slices.BinarySearchFunc: it is the planner's
// most frequent question, and the generic search's comparison calls cost
// a fifth of a plan.
func (tl *timeline) startingFrom(t int64) int {
	lo, hi := 0, len(tl.list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tl.list[m].start < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (tl *timeline) insert(b busy) {
	i := tl.startingFrom(b.start)
	tl.list = slices.Insert(tl.list, i, b)
	tl.maxEnd = slices.Insert(tl.maxEnd, i, b.bufEnd)
	for k := i; k < len(tl.list); k++ {
		m := tl.list[k].bufEnd
		if k > 0 {
			m = max(m, tl.maxEnd[k-1])
		}
		tl.maxEnd[k] = m
	}
}

// remove takes out job's stretch that starts at start.
func (tl *timeline) remove(start int64, job int32) {
	i := tl.startingFrom(start)
	for i < len(tl.list) && tl.list[i].start == start && tl.list[i].job != job {
		i++
	}
	if i == len(tl.list) || tl.list[i].start != start {
		return
	}
	tl.list = slices.Delete(tl.list, i, i+1)
	tl.maxEnd = slices.Delete(tl.maxEnd, i, i+1)
	for k := i; k < len(tl.list); k++ {
		m := tl.list[k].bufEnd
		if k > 0 {
			m = max(m, tl.maxEnd[k-1])
		}
		tl.maxEnd[k] = m
	}
}

// conflict finds the stretches in the way of [start, end) of job: those
// that overlap it, or, buffered (a bay's buffer), those of another job
// within the buffer before it (their bufEnd after start) or after it (they
// start before endBuf). It returns the latest time one of them frees.
func (tl *timeline) conflict(start, end, endBuf int64, job int32, buffered bool) (int64, bool) {
	hi := tl.startingFrom(endBuf)
	var to int64
	found := false
	for k := hi - 1; k >= 0 && tl.maxEnd[k] > start; k-- {
		b := tl.list[k]
		if buffered && b.job != job {
			if start < b.bufEnd && b.start < endBuf {
				to, found = max(to, b.bufEnd), true
			}
		} else if start < b.end && b.start < end {
			to, found = max(to, b.end), true
		}
	}
	return to, found
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (tl timeline) clone() timeline {
	return timeline{list: slices.Clone(tl.list), maxEnd: slices.Clone(tl.maxEnd)}
}
