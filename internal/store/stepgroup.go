package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Step patches (a technician starting or finishing work) are, after
// creates, the busiest write, and a patch alone takes about a dozen
// statements: the job, its location, the step, the step's row and event,
// the steps version and counts, the job's status, history and event. On
// SQLite they all run on the one writer, on PostgreSQL each patch is a
// transaction of its own.
//
// So concurrent patches are written in groups, as creates are
// (jobgroup.go): the patches that queued while the previous group was
// being written are read, checked and written together by a handful of
// statements in one atomic write, whatever their number.
//
// A group does only the plain case. A patch runs alone, by PatchStep's
// one-patch path that has every rule and message, when:
//   - it changes techIds (the technicians' checks and rows), carries an
//     Idempotency-Key, or is the second in the group for its job;
//   - it would fail: job or step not found or not the caller's, location
//     mid-close, job delivered or cancelled, stale updatedAt, a transition
//     or a bay refused;
//   - it changes the status of a step with technicians: their
//     work-in-progress limits count the steps in progress as stored, which
//     the group's other patches have not changed yet;
//   - any statement of the group fails: the group's write is undone as a
//     whole and each of its patches runs alone.

// maxPatchGroup bounds a group, and with it the statement texts prepared
// per connection.
const maxPatchGroup = 64

type patchReq struct {
	queued
	v             Visibility
	jobID, stepID string
	patch         StepPatch
	now           workshop.Micros
	job           workshop.Job  // as the group found it
	prev, step    workshop.Step // the step before and after
}

func newPatchQueue(s *Store) *groupQueue[*patchReq] {
	return newGroupQueue(maxPatchGroup, func(group []*patchReq) { writeQueued(s, group, writePatchGroup) })
}

// patchInGroup writes p in the patch queue's next group and returns the
// step as it left it; errRunAlone when the caller is to write it alone.
func (s *Store) patchInGroup(ctx context.Context, v Visibility, jobID, stepID string, p StepPatch, now workshop.Micros) (workshop.Step, error) {
	r := newPatchReq(ctx, v, jobID, stepID, p, now)
	if r.alone {
		return r.step, errRunAlone
	}
	if err := s.patches.send(ctx, r); err != nil {
		return r.step, err
	}
	return r.step, <-r.err
}

// newPatchReq is a patch for the queue, marked to run alone when it
// changes techIds.
func newPatchReq(ctx context.Context, v Visibility, jobID, stepID string, p StepPatch, now workshop.Micros) *patchReq {
	r := &patchReq{queued: newQueued(ctx), v: v, jobID: jobID, stepID: stepID, patch: p, now: now}
	r.alone = p.TechIDs != nil
	return r
}

// writePatchGroup writes the patches of a group that are not to run alone,
// each as the one-patch path would.
func writePatchGroup(c conn, group []*patchReq) error {
	ctx := context.Background()
	if err := settlePatches(ctx, c, group); err != nil {
		return err
	}
	var changed []*patchReq
	var steps []workshop.Step
	var jobIDs []any
	for _, r := range group {
		if !r.alone && r.step.UpdatedAt != r.prev.UpdatedAt {
			changed = append(changed, r)
			steps, jobIDs = append(steps, r.step), append(jobIDs, r.jobID)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if err := writeSteps(ctx, c, steps); err != nil {
		return err
	}
	counts, err := refreshSteps(ctx, c, jobIDs)
	if err != nil {
		return err
	}
	// Each job's event follows its step's, as on the one-patch path.
	var rederived []workshop.Job
	events := make([]any, 0, 2*len(changed)*eventWidth)
	for _, r := range changed {
		st, j := r.step, r.job
		if events, err = eventArgs(events, st.OrgID, st.LocationID, stepEvent(r.prev, st), st.UpdatedAt, stepRow(st)); err != nil {
			return err
		}
		if !deriveStatus(&j, counts[j.ID], st.UpdatedAt) {
			continue
		}
		rederived = append(rederived, j)
		if events, err = eventArgs(events, j.OrgID, j.LocationID, workshop.EventJobUpdated, j.UpdatedAt, jobRow(j)); err != nil {
			return err
		}
	}
	if len(rederived) > 0 {
		if err := writeStatuses(ctx, c, rederived); err != nil {
			return err
		}
	}
	if _, err := c.exec(ctx, eventInsert+valueRows(len(events)/eventWidth, eventWidth), events...); err != nil {
		return err
	}
	c.ev.n += len(events) / eventWidth
	return nil
}

// settlePatches reads the group's jobs (locked, in id order, so that the
// groups of several processes lock them in one order), their locations
// (share-locked on PostgreSQL, as openLocation does) and steps, and
// applies each patch, or marks it to run alone. A patch that changes
// nothing is answered with the step as it is.
func settlePatches(ctx context.Context, c conn, group []*patchReq) error {
	var jobIDs, stepIDs []any
	seen := map[string]bool{}
	for _, r := range group {
		// A job's derived status follows its steps one change at a time.
		r.alone = r.alone || seen[r.jobID]
		seen[r.jobID] = true
		if !r.alone {
			jobIDs, stepIDs = append(jobIDs, r.jobID), append(stepIDs, r.stepID)
		}
	}
	jobs, err := lockedByID(ctx, c, `SELECT `+jobColumns+` FROM jobs`, jobIDs, scanJob, func(j workshop.Job) string { return j.ID })
	if err != nil {
		return err
	}
	locIDs := make([]string, 0, len(jobs))
	for _, j := range jobs {
		locIDs = append(locIDs, j.LocationID)
	}
	locs, err := locationsForWrite(ctx, c, locIDs)
	if err != nil {
		return err
	}
	steps, err := lockedByID(ctx, c, `SELECT `+stepColumns+` FROM steps`, stepIDs, scanStep, func(st workshop.Step) string { return st.ID })
	if err != nil {
		return err
	}
	for _, r := range group {
		if r.alone {
			continue
		}
		j, foundJob := jobs[r.jobID]
		l, foundLoc := locs[j.LocationID]
		st, foundStep := steps[r.stepID]
		p := r.patch
		r.alone = !foundJob || !r.v.sees(j.OrgID, j.LocationID) ||
			writable(r.v, j.LocationID, l, foundLoc) != nil ||
			!foundStep || st.JobID != r.jobID || j.Terminal() || checkVersion("step", st.UpdatedAt, p.UpdatedAt) != nil ||
			(len(st.TechIDs) > 0 && p.Status != nil && *p.Status != st.Status)
		if r.alone {
			continue
		}
		next, err := applyStepPatch(ctx, c, st, p, r.now)
		if err != nil {
			r.alone = true // the one-patch path answers with the error
			continue
		}
		r.job, r.prev, r.step = j, st, st
		if !stepsEqual(st, next) {
			next.UpdatedAt = workshop.NextMicros(r.now.Time(), st.UpdatedAt)
			r.step = next
		}
	}
	return nil
}

// lockedByID reads the rows of ids (FOR UPDATE on PostgreSQL, in id order)
// by id.
func lockedByID[T any](ctx context.Context, c conn, query string, ids []any, scan func(scanner) (T, error), id func(T) string) (map[string]T, error) {
	byID := make(map[string]T, len(ids))
	if len(ids) == 0 {
		return byID, nil
	}
	rows, err := c.query(ctx, query+` WHERE id IN (`+placeholders(len(ids))+`) ORDER BY id`+c.s.forUpdate(), ids...)
	if err != nil {
		return nil, err
	}
	list, err := collect(rows, scan)
	for _, v := range list {
		byID[id(v)] = v
	}
	return byID, err
}
