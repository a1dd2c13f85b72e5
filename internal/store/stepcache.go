package store

import (
	"slices"

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
type stepCache struct{ byJob *memo[string, stepEntry] }

type stepEntry struct {
	version int64
	steps   []workshop.Step
}

func newStepCache() *stepCache { return &stepCache{byJob: newMemo[string, stepEntry](stepCacheSize)} }

// get returns a copy of the job's steps at version, if they are cached.
func (c *stepCache) get(jobID string, version int64) ([]workshop.Step, bool) {
	e, ok := c.byJob.get(jobID)
	if !ok || e.version != version {
		return nil, false
	}
	return cloneSteps(e.steps), true
}

// put keeps a copy of the job's steps at version.
func (c *stepCache) put(jobID string, version int64, steps []workshop.Step) {
	c.byJob.put(jobID, stepEntry{version: version, steps: cloneSteps(steps)})
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
