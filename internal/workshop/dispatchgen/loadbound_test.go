package dispatchgen

import (
	"math/rand/v2"
	"testing"
)

// TestMinAssignment: the Hungarian method's cost is the least over every
// permutation, on random matrices of 1 to 6 rows.
func TestMinAssignment(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + trial%6
		cost := make([][]int64, n)
		for i := range cost {
			cost[i] = make([]int64, n)
			for k := range cost[i] {
				cost[i][k] = int64(rng.IntN(50))
			}
		}
		if got, want := minAssignment(cost), bruteAssignment(cost, 0, make([]bool, n)); got != want {
			t.Errorf("trial %d, %v: got %d, want %d", trial, cost, got, want)
		}
	}
}

func bruteAssignment(cost [][]int64, row int, used []bool) int64 {
	if row == len(cost) {
		return 0
	}
	best := int64(-1)
	for c := range cost {
		if used[c] {
			continue
		}
		used[c] = true
		if v := cost[row][c] + bruteAssignment(cost, row+1, used); best < 0 || v < best {
			best = v
		}
		used[c] = false
	}
	return best
}
