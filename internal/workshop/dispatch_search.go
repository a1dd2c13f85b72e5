package workshop

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// search finds the plan. The budget is the steps placed (0: the default
// for the problem's size, sizedBudget; negative: first come first served
// alone), never time: the same input gives the same plan.
//
// With an anchor it starts from the anchor's plan as far as it holds (the
// warm start, warmStart) and spends up to half the budget improving the
// jobs the change affected (ruin and recreate seeded only there): the rest
// of the plan stays as readers saw it unless that is worse than need be.
// With nothing changed and less than KeptTolerance passed it stops there.
// It then decodes several starting orders under every tie rule and keeps
// the best of all, and improves it by ruin and recreate with the rest of
// the budget: seeded where the change was when the best is still the
// anchor's, anywhere otherwise. Last, the gaps left are closed (compact).
func (p *problem) search(budget int) decoded {
	if budget < 0 {
		return p.decode(p.firstComeFirstServed(), tieListed)
	}
	if budget == 0 {
		budget = p.sizedBudget()
	}
	var best decoded
	var seeds []int
	if p.in.Anchor != nil {
		best = p.warmStart()
		seeds = p.affected(best, p.frozen())
		if len(seeds) > 0 {
			best = p.ruinAndRecreate(best, p.placements+(budget-p.placements)/2, seeds)
		}
		if p.frozen() {
			return p.compact(best)
		}
	}
	warm := best.places != nil
	interleave := p.interleaveFits()
	starts := [][]int{p.earliestDueDate(), p.firstComeFirstServed(), p.leastSlack(), p.priorityFirst()}
	for rule := range tieRules {
		for _, order := range starts {
			if p.stopped() && best.places != nil {
				return best
			}
			best = p.tryOrder(best, order, rule, interleave)
		}
	}
	if len(p.jobs) <= everyOrderJobs {
		best = p.everyOrder(best, budget, interleave)
	}
	if best.order != nil {
		seeds = nil
	} else if warm && len(seeds) == 0 {
		return p.compact(best) // nothing changed that a search could mend
	}
	return p.compact(p.ruinAndRecreate(best, budget, seeds))
}

// everyOrderJobs bounds the jobs of a plan whose every order the search
// decodes (5! = 120 orders) before it moves late jobs: on a day that small
// the best order is found rather than searched for, within the budget.
const everyOrderJobs = 5

// everyOrder decodes every order of the jobs under every tie rule (and
// interleaved where that fits), in lexicographic order, while the budget
// lasts, and returns the best of them and best.
func (p *problem) everyOrder(best decoded, budget int, interleave bool) decoded {
	order := make([]int, len(p.jobs))
	for i := range order {
		order[i] = i
	}
	for {
		for rule := range tieRules {
			if p.placements >= budget || p.stopped() {
				return best
			}
			best = p.tryOrder(best, slices.Clone(order), rule, interleave)
		}
		if !nextPermutation(order) {
			return best
		}
	}
}

// tryOrder decodes order under rule, job by job and, where that fits,
// interleaved, and returns the best of them and best (none yet: its places
// are nil).
func (p *problem) tryOrder(best decoded, order []int, rule int, interleave bool) decoded {
	if d := p.decode(order, rule); best.places == nil || d.score.better(best.score) {
		best = d
	}
	if interleave {
		if d := p.decodeInterleaved(order, rule); d.score.better(best.score) {
			best = d
		}
	}
	return best
}

// nextPermutation rearranges order into the next in lexicographic order;
// false when it was the last.
func nextPermutation(order []int) bool {
	i := len(order) - 2
	for i >= 0 && order[i] >= order[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(order) - 1
	for order[j] <= order[i] {
		j--
	}
	order[i], order[j] = order[j], order[i]
	slices.Reverse(order[i+1:])
	return true
}

// budgetSteps is the size DefaultDispatchBudget is set for: the contract's
// 80 jobs of 4 steps.
const budgetSteps = 80 * 4

// SizedBudget is the budget a plan of in gets by default (sizedBudget).
func SizedBudget(in DispatchInput) int { return newProblem(in).sizedBudget() }

// sizedBudget is DefaultDispatchBudget scaled to the steps to place, by
// the square root of their share of 80 x 4: a location of 20 jobs does not
// pay the search of 80 (issue 30: the promise watch plans every location),
// while a small plan, whose decodes are cheap, still gets more of them than
// a large one and keeps its quality (docs/benchmarks.md). Past 80 x 4 the
// budget stays at the default, which keeps the contract's time.
func (p *problem) sizedBudget() int {
	steps := 0
	for i := range p.jobs {
		steps += len(p.jobs[i].steps)
	}
	share := min(1, float64(steps)/budgetSteps)
	return max(1, int(DefaultDispatchBudget*math.Sqrt(share)))
}

// orderBy is the jobs sorted by key, then by creation and id.
func (p *problem) orderBy(key func(pj *pjob) float64) []int {
	order := make([]int, len(p.jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ja, jb := &p.jobs[a], &p.jobs[b]
		if c := cmp.Compare(key(ja), key(jb)); c != 0 {
			return c
		}
		if c := ja.job.CreatedAt.Compare(jb.job.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(ja.job.ID, jb.job.ID)
	})
	return order
}

// dueMinutes is a job's promise in minutes after the plan's start; a job
// without a promise is due after every promise (the horizon).
func (p *problem) dueMinutes(pj *pjob) float64 {
	if pj.job.PromiseTime == nil {
		return DispatchHorizon.Minutes()
	}
	return float64(micros(*pj.job.PromiseTime)-p.start) / float64(time.Minute/time.Microsecond)
}

// earliestDueDate: by promise, the weightier first among equals.
func (p *problem) earliestDueDate() []int {
	return p.orderBy(func(pj *pjob) float64 { return p.dueMinutes(pj) - float64(pj.weight)/100 })
}

// firstComeFirstServed: by arrival (creation for a booking).
func (p *problem) firstComeFirstServed() []int {
	return p.orderBy(func(pj *pjob) float64 {
		at := pj.job.CreatedAt
		if pj.job.ArrivalTime != nil {
			at = *pj.job.ArrivalTime
		}
		return float64(micros(at) - p.start)
	})
}

// leastSlack: by the time left after the job's own work, per weight.
func (p *problem) leastSlack() []int {
	return p.orderBy(func(pj *pjob) float64 {
		var work time.Duration
		for _, s := range pj.steps {
			if !s.inProgress {
				work += s.Duration
			}
		}
		return (p.dueMinutes(pj) - work.Minutes()) / float64(pj.weight)
	})
}

// priorityFirst: the weightiest jobs first, by promise among equals.
func (p *problem) priorityFirst() []int {
	return p.orderBy(func(pj *pjob) float64 { return -float64(pj.weight)*1e7 + p.dueMinutes(pj) })
}
