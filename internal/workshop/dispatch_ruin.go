package workshop

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// ruinAndRecreate improves best by large neighbourhood search until the
// steps placed reach budget: it takes a few related jobs out of the plan
// (a job at risk and the jobs in its way, jobs near each other on the same
// technicians and bays, or jobs at random), places them again in another
// order and under another tie rule around everything else, and keeps the
// result when it is no worse. Unlike moving a job in an order, which
// decodes every job after it again, it changes only the jobs it took out:
// a re-plan from the anchor stays near it, and many more neighbours fit
// the budget. Its random choices come from a fixed seed: the same input
// gives the same plan.
func (p *problem) ruinAndRecreate(best decoded, budget int, seeds []int) decoded {
	var movable []int // the jobs with a step a decode places
	for ji := range p.jobs {
		if slices.ContainsFunc(p.jobs[ji].steps, func(s pstep) bool { return !s.fixed }) {
			movable = append(movable, ji)
		}
	}
	if seeds != nil {
		seeds = slices.DeleteFunc(slices.Clone(seeds), func(ji int) bool { return !slices.Contains(movable, ji) })
		if len(seeds) == 0 {
			return best
		}
	}
	if len(movable) < 2 {
		return best
	}
	rng := rand.New(rand.NewPCG(uint64(len(p.jobs)), 0x9e3779b97f4a7c15))
	r := p.resourcesOf(best)
	cur := decoded{order: best.order, places: slices.Clone(best.places),
		parts: slices.Clone(best.parts), score: best.score}
	for p.placements < budget && !p.stopped() {
		ruined := p.ruinSet(cur, movable, seeds, rng)
		for _, ji := range ruined {
			p.release(&r, ji, cur.places[ji])
		}
		p.recreateOrder(ruined, rng)
		rule := rng.IntN(tieRules)
		p.stick = p.in.Anchor != nil || rng.IntN(2) == 0
		next := make([][]placement, len(ruined))
		candidate := cur.score
		for i, ji := range ruined {
			next[i] = p.placeJob(&p.jobs[ji], &r, rule)
		}
		p.stick = false
		parts := make([]jobScore, len(ruined))
		for i, ji := range ruined {
			parts[i] = p.jobScoreOf(ji, next[i])
			candidate = candidate.minus(cur.parts[ji]).plus(parts[i])
		}
		if cur.score.better(candidate) { // worse: put the jobs back as they were
			for i, ji := range ruined {
				p.release(&r, ji, next[i])
			}
			for _, ji := range ruined {
				p.hold(&r, ji, cur.places[ji])
			}
			continue
		}
		for i, ji := range ruined {
			cur.places[ji], cur.parts[ji] = next[i], parts[i]
		}
		cur.score = candidate
	}
	return cur
}

// resourcesOf is the busy times of a plan: the fixed ones and every
// placement of d.
func (p *problem) resourcesOf(d decoded) resources {
	r := p.fixed.clone()
	for ji := range p.jobs {
		p.hold(&r, ji, d.places[ji])
	}
	return r
}

// hold takes the resources of a job's placements that are not fixed.
func (p *problem) hold(r *resources, ji int, places []placement) {
	pj := &p.jobs[ji]
	for si, pl := range places {
		if !pj.steps[si].fixed && pl.reason == "" {
			p.take(r, pl.techs, pl.bay, pl.start, pl.end, pj.job.ID)
		}
	}
}

// release frees the resources of a job's placements that are not fixed.
func (p *problem) release(r *resources, ji int, places []placement) {
	pj := &p.jobs[ji]
	for si, pl := range places {
		if !pj.steps[si].fixed && pl.reason == "" {
			p.untake(r, pl.techs, pl.bay, pl.start, pj.job.ID)
		}
	}
}

// ruinSize bounds the jobs a ruin takes out.
const ruinSize = 6

// ruinSet chooses the jobs to take out: a seed job and up to a few
// related ones. Half the time the seed is a job at risk (when there is
// one) and the related jobs are those with work before its completion on
// technicians or bays it could use: the ones in its way. Otherwise the
// seed is any job, and the related ones those whose work lies nearest in
// time to its own on the technicians and bays it has, or, now and then,
// any jobs. Seeds, when not nil, are the only jobs a seed is taken from.
func (p *problem) ruinSet(d decoded, movable, seeds []int, rng *rand.Rand) []int {
	if seeds == nil {
		seeds = movable
	}
	k := 2 + rng.IntN(min(ruinSize, len(movable))-1)
	seed := seeds[rng.IntN(len(seeds))]
	if rng.IntN(2) == 0 {
		var late []int
		for _, ji := range seeds {
			if part := d.parts[ji]; part.unplaced > 0 || part.weightedLate > 0 {
				late = append(late, ji)
			}
		}
		if len(late) > 0 {
			seed = late[rng.IntN(len(late))]
			return p.related(d, seed, movable, k, rng, p.inTheWay)
		}
	}
	if rng.IntN(4) == 0 {
		out := []int{seed}
		for _, i := range rng.Perm(len(movable)) {
			if len(out) == k {
				break
			}
			if movable[i] != seed {
				out = append(out, movable[i])
			}
		}
		return out
	}
	return p.related(d, seed, movable, k, rng, p.nearby)
}

// related is seed and up to k-1 other movable jobs, the nearest first by
// distance from seed (negative: not related), ties broken at random.
func (p *problem) related(d decoded, seed int, movable []int, k int, rng *rand.Rand,
	distanceFrom func(d decoded, seed int) func(other int) int64) []int {
	type near struct {
		job  int
		dist int64
		tie  uint32
	}
	distance := distanceFrom(d, seed)
	var list []near
	for _, ji := range movable {
		if ji == seed {
			continue
		}
		if dist := distance(ji); dist >= 0 {
			list = append(list, near{ji, dist, rng.Uint32()})
		}
	}
	slices.SortFunc(list, func(a, b near) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		return cmp.Compare(a.tie, b.tie)
	})
	out := []int{seed}
	for _, n := range list[:min(len(list), k-1)] {
		out = append(out, n.job)
	}
	return out
}

// inTheWay measures another job by its work that starts before seed's
// completion on a technician or bay one of seed's steps could have: how
// long before that completion it starts (the latest first: the job a
// seed's step waits behind); negative when it has none.
func (p *problem) inTheWay(d decoded, seed int) func(other int) int64 {
	end := p.horizon
	if d.parts[seed].unplaced == 0 {
		end = p.start + d.parts[seed].completion
	}
	could := map[string]bool{}
	for _, s := range p.jobs[seed].steps {
		for _, ids := range [][]string{s.techs, s.TechIDs, s.bays} {
			for _, id := range ids {
				could[id] = true
			}
		}
		if s.BayID != "" {
			could[s.BayID] = true
		}
	}
	return func(other int) int64 {
		best := int64(-1)
		for si, pl := range d.places[other] {
			if p.jobs[other].steps[si].fixed || pl.reason != "" || pl.start >= end {
				continue
			}
			if could[pl.bay] || slices.ContainsFunc(pl.techs, func(t string) bool { return could[t] }) {
				if dist := end - pl.start; best < 0 || dist < best {
					best = dist
				}
			}
		}
		return best
	}
}

// nearby measures another job by its work on a technician or bay that
// seed's work has: the least time between their starts there; negative
// when it has none.
func (p *problem) nearby(d decoded, seed int) func(other int) int64 {
	return func(other int) int64 {
		best := int64(-1)
		for _, a := range d.places[seed] {
			if a.reason != "" {
				continue
			}
			for si, b := range d.places[other] {
				if p.jobs[other].steps[si].fixed || b.reason != "" {
					continue
				}
				if (a.bay != "" && a.bay == b.bay) || slices.ContainsFunc(a.techs, func(t string) bool { return slices.Contains(b.techs, t) }) {
					best = minDistance(best, a.start-b.start)
				}
			}
		}
		return best
	}
}

// minDistance is the lesser of best (negative: none yet) and |d|.
func minDistance(best, d int64) int64 {
	if d < 0 {
		d = -d
	}
	if best < 0 || d < best {
		return d
	}
	return best
}

// recreateOrder orders the jobs taken out for placing again: by promise
// (the weightier first among equals), at random, or the seed first and
// the others by promise.
func (p *problem) recreateOrder(jobs []int, rng *rand.Rand) {
	due := func(ji int) float64 { return p.dueMinutes(&p.jobs[ji]) - float64(p.jobs[ji].weight)/100 }
	byDue := func(a, b int) int { return cmp.Compare(due(a), due(b)) }
	switch rng.IntN(3) {
	case 0:
		slices.SortStableFunc(jobs, byDue)
	case 1:
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	default:
		slices.SortStableFunc(jobs[1:], byDue)
	}
}
