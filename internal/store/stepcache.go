package store

import (
	"slices"
	"sync"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// stepCacheSize bounds how many jobs' steps a process keeps: about 2.5 KB a
// job of 10 steps, so 10 MB at most.
const stepCacheSize = 4096

// stepCache keeps the steps of recently read jobs. Reading a job's steps
// is most of the cost of a job read (each column read goes through the
// driver, 150 of them for 10 steps), and jobs are read far more often than
// their steps change. An entry is valid for one steps version of its job
// (job_steps_versions): every step write increments it in its own
// transaction, so steps cached at the version a reader has just read with
// the job's row are exactly the steps stored with that row, whichever
// process wrote them. Nothing is ever invalidated; a stale entry is simply
// never matched again.
type stepCache struct {
	mu sync.Mutex
	m  map[string]stepEntry // by job id
}

type stepEntry struct {
	version int64
	steps   []workshop.Step
}

func newStepCache() *stepCache { return &stepCache{m: make(map[string]stepEntry)} }

// get returns a copy of the job's steps at version, if they are cached.
func (c *stepCache) get(jobID string, version int64) ([]workshop.Step, bool) {
	c.mu.Lock()
	e, ok := c.m[jobID]
	c.mu.Unlock()
	if !ok || e.version != version {
		return nil, false
	}
	return cloneSteps(e.steps), true
}

// put keeps a copy of the job's steps at version. When the cache is full
// an arbitrary entry makes room (Go's map iteration starts at random).
func (c *stepCache) put(jobID string, version int64, steps []workshop.Step) {
	steps = cloneSteps(steps)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[jobID]; !ok && len(c.m) >= stepCacheSize {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[jobID] = stepEntry{version: version, steps: steps}
}

// cloneSteps copies steps deeply: callers own what they get.
func cloneSteps(steps []workshop.Step) []workshop.Step {
	out := slices.Clone(steps)
	for i := range out {
		st := &out[i]
		st.TechIDs = slices.Clone(st.TechIDs)
		st.BayID = clonePtr(st.BayID)
		st.StartedAt = clonePtr(st.StartedAt)
		st.CompletedAt = clonePtr(st.CompletedAt)
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
