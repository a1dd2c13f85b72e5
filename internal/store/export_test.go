package store

import (
	"context"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CreateJobsAsOneGroup runs creates as CreateJob does, but as one group of
// the create queue, as if all had queued while the previous group was
// written: concurrent creates form groups only when they happen to meet.
// together tells which of them the group wrote; the others ran alone.
func (s *Store) CreateJobsAsOneGroup(ctxs []context.Context, jobs []workshop.Job) (out []JobCreate, together []bool, errs []error) {
	group := make([]*createReq, len(jobs))
	for i, j := range jobs {
		group[i] = newCreateReq(ctxs[i], j, false)
	}
	s.creates.write(group)
	out, together, errs = make([]JobCreate, len(jobs)), make([]bool, len(jobs)), make([]error, len(jobs))
	for i, r := range group {
		j, err := r.outcome()
		if errors.Is(err, errRunAlone) {
			out[i], errs[i] = s.createAlone(ctxs[i], jobs[i], false)
			continue
		}
		out[i], together[i], errs[i] = JobCreate{Job: j, Created: err == nil}, err == nil, err
	}
	return out, together, errs
}
