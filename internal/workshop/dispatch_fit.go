package workshop

import "slices"

// busy is a stretch a technician or bay is taken, by a job.
type busy struct {
	start, end int64
	bufEnd     int64 // bays: end plus the bay buffer in working time
	job        string
}

// take marks technicians and a bay busy for a job's step.
func (p *problem) take(tech, bay map[string]*timeline, techs []string, bayID string, start, end int64, job string) {
	for _, t := range techs {
		tl := tech[t]
		if tl == nil {
			tl = &timeline{}
			tech[t] = tl
		}
		tl.insert(busy{start: start, end: end, bufEnd: end, job: job})
	}
	if bayID != "" {
		tl := bay[bayID]
		if tl == nil {
			tl = &timeline{}
			bay[bayID] = tl
		}
		tl.insert(busy{start: start, end: end, bufEnd: p.clock.addWork(end, p.buffer), job: job})
	}
}

// ownReason is why a pending step cannot be placed whatever the others:
// nobody to do it, or no bay to do it in; "" when it has both.
func (p *problem) ownReason(s pstep) string {
	switch {
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
func (p *problem) place(s pstep, release int64, tech, bay map[string]*timeline) placement {
	if own := p.ownReason(s); own != "" {
		return placement{reason: own}
	}
	techSets := [][]string{s.TechIDs}
	if len(s.TechIDs) == 0 {
		techSets = make([][]string, len(s.techs))
		for i := range s.techs {
			techSets[i] = s.techs[i : i+1 : i+1]
		}
	}
	bays := []string{s.BayID} // "" when the location has no bays
	if s.BayID == "" && len(p.bays) > 0 {
		bays = s.bays
	}
	// The earliest each could start alone bounds what a pair can: walk the
	// pairs by that bound and stop when none can start earlier than the
	// best found (a step's end only grows with its start).
	techs := make([]free, len(techSets))
	for i, ts := range techSets {
		techs[i] = free{i, p.fit(release, s.dur, ts, "", s.jobID, tech, bay)}
	}
	bayFree := make([]free, len(bays))
	for i, b := range bays {
		bayFree[i] = free{i, p.fit(release, s.dur, nil, b, s.jobID, tech, bay)}
	}
	byTime := func(a, b free) int { return int(a.at - b.at) }
	slices.SortStableFunc(techs, byTime)
	slices.SortStableFunc(bayFree, byTime)
	best := placement{reason: UnplacedBeyond}
	for _, bf := range bayFree {
		if best.reason == "" && bf.at >= best.start {
			break
		}
		for _, tf := range techs {
			bound := max(tf.at, bf.at)
			if bound > p.horizon || (best.reason == "" && bound >= best.start) {
				break
			}
			start := bound // without a bay, the technicians' own fit
			if bays[bf.i] != "" {
				start = p.fit(bound, s.dur, techSets[tf.i], bays[bf.i], s.jobID, tech, bay)
			}
			if start > p.horizon {
				continue
			}
			end := p.clock.addWork(start, s.dur)
			if end > p.horizon {
				continue
			}
			if best.reason != "" || start < best.start {
				best = placement{techs: techSets[tf.i], bay: bays[bf.i], start: start, end: end}
			}
		}
	}
	return best
}

// fit is the earliest start from t at which a step of job and duration d
// is free on the technicians and bay ("" none) given, in working time; past
// the horizon when there is none before it.
func (p *problem) fit(t, d int64, techs []string, bayID, job string, tech, bay map[string]*timeline) int64 {
	for {
		t = p.clock.nextOpen(t)
		if t > p.horizon {
			return t
		}
		end := p.clock.addWork(t, d)
		moved := false
		for _, id := range techs {
			if tl := tech[id]; tl != nil {
				if to, ok := tl.conflict(t, end, end, job, false); ok {
					t, moved = max(t, to), true
				}
			}
		}
		if bayID != "" {
			if tl := bay[bayID]; tl != nil {
				endBuf := end
				if p.buffer > 0 {
					endBuf = p.clock.addWork(end, p.buffer)
				}
				if to, ok := tl.conflict(t, end, endBuf, job, p.buffer > 0); ok {
					t, moved = max(t, to), true
				}
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

func (tl *timeline) insert(b busy) {
	i, _ := slices.BinarySearchFunc(tl.list, b.start, func(x busy, t int64) int { return cmp64(x.start, t) })
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

// conflict finds the stretches in the way of [start, end) of job: those
// that overlap it, or, buffered (a bay's buffer), those of another job
// within the buffer before it (their bufEnd after start) or after it (they
// start before endBuf). It returns the latest time one of them frees.
func (tl *timeline) conflict(start, end, endBuf int64, job string, buffered bool) (int64, bool) {
	hi, _ := slices.BinarySearchFunc(tl.list, endBuf, func(x busy, t int64) int { return cmp64(x.start, t) })
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

func cloneTimelines(m map[string]*timeline) map[string]*timeline {
	out := make(map[string]*timeline, len(m)+8)
	for k, v := range m {
		out[k] = &timeline{list: slices.Clone(v.list), maxEnd: slices.Clone(v.maxEnd)}
	}
	return out
}
