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
// keys[i] is the Idempotency-Key of jobs[i] (nil: none).
func (s *Store) CreateJobsAsOneGroup(ctx context.Context, jobs []workshop.Job, keys []*IdempotencyKey) (out []JobCreate, together []bool, errs []error) {
	group := make([]*createReq, len(jobs))
	for i, j := range jobs {
		group[i] = newCreateReq(ctx, j, false, keys[i])
	}
	writeQueued(s, group, writeGroup)
	out, together, errs = make([]JobCreate, len(jobs)), make([]bool, len(jobs)), make([]error, len(jobs))
	for i, r := range group {
		j, err := r.outcome()
		if errors.Is(err, errRunAlone) {
			out[i], errs[i] = s.createAlone(ctx, jobs[i], false, keys[i])
			continue
		}
		out[i], together[i], errs[i] = JobCreate{Job: j, Created: err == nil}, err == nil, err
	}
	return out, together, errs
}

// GroupPatch is one step patch of PatchStepsAsOneGroup.
type GroupPatch struct {
	V             Visibility
	JobID, StepID string
	Patch         StepPatch
	Now           workshop.Micros
}

// PatchStepsAsOneGroup runs patches as PatchStep does, but as one group of
// the patch queue. together tells which of them the group answered; the
// others ran alone.
func (s *Store) PatchStepsAsOneGroup(ctx context.Context, patches []GroupPatch) (out []workshop.Step, together []bool, errs []error) {
	group := make([]*patchReq, len(patches))
	for i, p := range patches {
		group[i] = newPatchReq(ctx, p.V, p.JobID, p.StepID, p.Patch, p.Now)
	}
	writeQueued(s, group, writePatchGroup)
	out, together, errs = make([]workshop.Step, len(patches)), make([]bool, len(patches)), make([]error, len(patches))
	for i, r := range group {
		if err := <-r.err; !errors.Is(err, errRunAlone) {
			out[i], together[i], errs[i] = r.step, err == nil, err
			continue
		}
		p := patches[i]
		out[i], errs[i] = s.patchAlone(ctx, p.V, p.JobID, p.StepID, p.Patch, p.Now)
	}
	return out, together, errs
}

// WriterPragma reads a pragma on the SQLite writer connection.
func (s *Store) WriterPragma(ctx context.Context, name string) (string, error) {
	var v string
	err := s.writer.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}
