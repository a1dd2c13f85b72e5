package dispatchgen

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// LoadBound is a lower bound of the weighted late minutes of any feasible
// plan of in, tighter than LowerBound where technicians or bays are
// scarce. For a group of technicians (every set of them that some step's
// qualified technicians make, and all of them), the steps only they can
// do must be done by them: with m of them, by the time k jobs have had
// that work done, at least the k smallest of the jobs' shares of it have
// been worked, so the k-th job to have it done completes no earlier than
// L_k, the plan's start plus that work over m, in working time (every
// other constraint relaxed: the work divisible, any release and the steps
// in progress ignored). Every job also completes no earlier than alone
// (aloneEnds). Which job is k-th is unknown, so the bound is the least
// weighted lateness over every assignment of jobs to ranks (the Hungarian
// method), each job at the later of its rank's L and its own end. Bays
// are grouped the same way. LoadBound is the largest of these and
// LowerBound.
func LoadBound(in workshop.DispatchInput) int {
	own := aloneEnds(in)
	best := 0
	for i, end := range own {
		best += weightedLate(in.Jobs[i], end)
	}
	for _, g := range groups(in) {
		best = max(best, groupBound(in, own, g))
	}
	return best
}

// group is a set of technicians or bays, and for each pending step
// whether only they can take it.
type group struct {
	size  int
	holds func(s workshop.DispatchStep) bool
}

// groups are the technician and bay groups of in's pending steps.
func groups(in workshop.DispatchInput) []group {
	var out []group
	seen := map[string]bool{}
	add := func(kind string, members []string, of func(workshop.DispatchStep) []string) {
		key := kind + strings.Join(members, ",")
		if len(members) == 0 || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, group{size: len(members), holds: func(s workshop.DispatchStep) bool {
			can := of(s)
			return len(can) > 0 && !slices.ContainsFunc(can, func(id string) bool { return !slices.Contains(members, id) })
		}})
	}
	var allTechs, allBays []string
	for _, t := range in.Techs {
		if !t.Unavailable {
			allTechs = append(allTechs, t.ID)
		}
	}
	for _, b := range in.Bays {
		if !b.Maintenance {
			allBays = append(allBays, b.ID)
		}
	}
	techsOf := func(s workshop.DispatchStep) []string { return qualified(in, s) }
	baysOf := func(s workshop.DispatchStep) []string { return suitable(in, s) }
	add("t", allTechs, techsOf)
	add("b", allBays, baysOf)
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			if s.Status == workshop.StepPending {
				add("t", techsOf(s), techsOf)
				add("b", baysOf(s), baysOf)
			}
		}
	}
	return out
}

func qualified(in workshop.DispatchInput, s workshop.DispatchStep) []string {
	if len(s.TechIDs) > 0 {
		return slices.Sorted(slices.Values(s.TechIDs))
	}
	var out []string
	for _, t := range in.Techs {
		if !t.Unavailable && !slices.ContainsFunc(s.RequiredSkills, func(k string) bool { return !slices.Contains(t.Skills, k) }) {
			out = append(out, t.ID)
		}
	}
	slices.Sort(out)
	return out
}

func suitable(in workshop.DispatchInput, s workshop.DispatchStep) []string {
	if s.BayID != "" {
		return []string{s.BayID}
	}
	var out []string
	for _, b := range in.Bays {
		if !b.Maintenance && (len(b.Services) == 0 || s.ServiceCode == "" || slices.Contains(b.Services, s.ServiceCode)) {
			out = append(out, b.ID)
		}
	}
	slices.Sort(out)
	return out
}

// groupBound is the bound of one group: the jobs with work only it can do
// assigned to ranks at least cost, the others at their own ends.
func groupBound(in workshop.DispatchInput, own []time.Time, g group) int {
	total := 0
	var jobs []int
	var work []time.Duration
	for i, j := range in.Jobs {
		var w time.Duration
		for _, s := range j.Steps {
			if s.Status == workshop.StepPending && g.holds(s) {
				w += s.Duration
			}
		}
		if w == 0 {
			total += weightedLate(j, own[i])
			continue
		}
		jobs, work = append(jobs, i), append(work, w)
	}
	if len(jobs) == 0 {
		return total
	}
	slices.Sort(work)
	start := workshop.DispatchStart(in)
	ranks := make([]time.Time, len(work))
	var done time.Duration
	for k, w := range work {
		done += w
		ranks[k] = in.Calendar.AddWork(start, done/time.Duration(g.size))
	}
	cost := make([][]int64, len(jobs))
	for a, ji := range jobs {
		cost[a] = make([]int64, len(ranks))
		for k, at := range ranks {
			cost[a][k] = int64(weightedLate(in.Jobs[ji], later(at, own[ji])))
		}
	}
	return total + int(minAssignment(cost))
}

// minAssignment is the least total cost of assigning each row of a square
// cost matrix to a column of its own (the Hungarian method, O(n^3)).
func minAssignment(cost [][]int64) int64 {
	n := len(cost)
	const inf = math.MaxInt64 / 4
	u, v := make([]int64, n+1), make([]int64, n+1)
	match, way := make([]int, n+1), make([]int, n+1) // match[col] = row, 1-based
	for row := 1; row <= n; row++ {
		match[0] = row
		col := 0
		minv := make([]int64, n+1)
		used := make([]bool, n+1)
		for i := range minv {
			minv[i] = inf
		}
		for match[col] != 0 {
			used[col] = true
			r, delta, next := match[col], int64(inf), 0
			for c := 1; c <= n; c++ {
				if used[c] {
					continue
				}
				if cur := cost[r-1][c-1] - u[r] - v[c]; cur < minv[c] {
					minv[c], way[c] = cur, col
				}
				if minv[c] < delta {
					delta, next = minv[c], c
				}
			}
			for c := 0; c <= n; c++ {
				if used[c] {
					u[match[c]] += delta
					v[c] -= delta
				} else {
					minv[c] -= delta
				}
			}
			col = next
		}
		for col != 0 {
			prev := way[col]
			match[col] = match[prev]
			col = prev
		}
	}
	var total int64
	for c := 1; c <= n; c++ {
		total += cost[match[c]-1][c-1]
	}
	return total
}
