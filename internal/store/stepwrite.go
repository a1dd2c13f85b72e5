package store

import (
	"context"
	"slices"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Step patches (a technician starting or finishing work) are, after
// creates, the busiest write, and a patch takes about a dozen statements:
// the job, its location, the step, the step's row and event, the steps
// version and counts, the job's status, history and event. So a group of
// concurrent patches is read, decided and written by a handful of
// statements in one atomic write, whatever its number (groupWriter).
//
// The second patch of a job in a group is deferred to a group of its own:
// a job's derived status and events follow its steps one change at a time.

// maxPatchGroup bounds a group, and with it the statement texts prepared
// per connection.
const maxPatchGroup = 64

type patchReq struct {
	queued
	v             Visibility
	jobID, stepID string
	patch         StepPatch
	now           workshop.Micros
	job           workshop.Job  // as loaded
	prev, step    workshop.Step // the step before and after
}

func newPatchWriter(s *Store) *groupWriter[*patchReq] {
	return newGroupWriter(s, maxPatchGroup, writePatches)
}

// writePatches loads what a group of patches needs, decides each with the
// domain's rules (workshop.ChangeStep) and writes the changed steps, their
// jobs' derived statuses and the events.
func writePatches(c conn, group []*patchReq) error {
	ctx := context.Background()
	l, err := loadPatches(ctx, c, group)
	if err != nil {
		return err
	}
	var changed []*patchReq
	for _, r := range group {
		if r.deferred {
			continue
		}
		if r.refused = l.decide(r); r.refused == nil && r.step.UpdatedAt != r.prev.UpdatedAt {
			changed = append(changed, r)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return persistPatches(ctx, c, changed)
}

// patchLoad is what a group of patches is decided on.
type patchLoad struct {
	jobs  map[string]workshop.Job
	locs  map[string]lockedLocation
	steps map[string]workshop.Step
	facts workshop.StepFacts
}

// loadPatches reads the group's jobs (locked, in id order, so that the
// groups of several processes lock them in one order), their locations
// (share-locked on PostgreSQL, as openLocation does), steps (locked), and
// the technicians and bays the patches name or start steps with (locked,
// in id order: their steps in progress hold until the commit). It defers
// each patch of a job after the group's first.
func loadPatches(ctx context.Context, c conn, group []*patchReq) (patchLoad, error) {
	var l patchLoad
	var jobIDs, stepIDs []any
	seen := map[string]bool{}
	for _, r := range group {
		r.deferred = seen[r.jobID]
		seen[r.jobID] = true
		if !r.deferred {
			jobIDs, stepIDs = append(jobIDs, r.jobID), append(stepIDs, r.stepID)
		}
	}
	var err error
	if l.jobs, err = lockedByID(ctx, c, `SELECT `+jobColumns+` FROM jobs`, jobIDs, scanJob, func(j workshop.Job) string { return j.ID }); err != nil {
		return l, err
	}
	locIDs := make([]string, 0, len(l.jobs))
	for _, j := range l.jobs {
		locIDs = append(locIDs, j.LocationID)
	}
	if l.locs, err = locationsForWrite(ctx, c, locIDs); err != nil {
		return l, err
	}
	if l.steps, err = lockedByID(ctx, c, `SELECT `+stepColumns+` FROM steps`, stepIDs, scanStep, func(st workshop.Step) string { return st.ID }); err != nil {
		return l, err
	}
	var techIDs, bayIDs []string
	for _, r := range group {
		p := r.patch
		if p.TechIDs != nil {
			techIDs = append(techIDs, *p.TechIDs...)
		}
		if st, ok := l.steps[r.stepID]; ok && p.Status != nil && *p.Status == workshop.StepInProgress {
			techIDs = append(techIDs, st.TechIDs...)
			if st.BayID != nil {
				bayIDs = append(bayIDs, *st.BayID)
			}
		}
		if p.BayID != nil && *p.BayID != nil {
			bayIDs = append(bayIDs, **p.BayID)
		}
	}
	if l.facts.Technicians, err = technicianLoads(ctx, c, techIDs); err != nil {
		return l, err
	}
	l.facts.JobNumbers = map[string]string{}
	l.facts.Bays, err = baySlots(ctx, c, bayIDs, l.facts.JobNumbers)
	return l, err
}

// decide decides a patch on what was loaded, in the order of the one-patch
// rules: the job (not found when the caller does not see it), its location
// (open for writes), the step, then the domain's rules. A decided change
// is kept in the facts for the group's next patches.
func (l patchLoad) decide(r *patchReq) error {
	j, found := l.jobs[r.jobID]
	if !found || !r.v.sees(j.OrgID, j.LocationID) {
		return workshop.NotFound("job")
	}
	loc, found := l.locs[j.LocationID]
	if err := writable(r.v, j.LocationID, loc, found); err != nil {
		return err
	}
	st, found := l.steps[r.stepID]
	if !found || st.JobID != r.jobID {
		return workshop.NotFound("step")
	}
	next, err := workshop.ChangeStep(j, st, r.patch, r.now, l.facts)
	if err != nil {
		return err
	}
	l.facts.Record(j, st, next)
	r.job, r.prev, r.step = j, st, next
	return nil
}

// persistPatches writes the changed steps (one upsert), the technicians of
// those whose technicians changed, the jobs' steps versions and derived
// statuses, and the events: each step's, then its job's when the job's
// status changed.
func persistPatches(ctx context.Context, c conn, changed []*patchReq) error {
	steps, jobIDs := make([]workshop.Step, 0, len(changed)), make([]any, 0, len(changed))
	var retechnicianed []workshop.Step
	for _, r := range changed {
		steps, jobIDs = append(steps, r.step), append(jobIDs, r.jobID)
		if !slices.Equal(r.prev.TechIDs, r.step.TechIDs) {
			retechnicianed = append(retechnicianed, r.step)
		}
	}
	if err := writeSteps(ctx, c, steps); err != nil {
		return err
	}
	if err := assignTechnicians(ctx, c, retechnicianed); err != nil {
		return err
	}
	counts, err := refreshSteps(ctx, c, jobIDs)
	if err != nil {
		return err
	}
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

// stepHoldsWork is the condition on a step (aliased s) that holds its
// technicians' WIP and its bay: in progress, of a job neither delivered
// nor cancelled (contract section 4: a closed job's step counts for
// neither, and the board shows neither as busy).
const stepHoldsWork = `s.status = 'in_progress' AND NOT EXISTS (SELECT 1 FROM jobs closed
	WHERE closed.id = s.job_id AND closed.status IN ('delivered', 'cancelled'))`

// technicianLoads reads technicians (deleted ones too) for step changes,
// locked in id order, with the steps in progress each is assigned to.
func technicianLoads(ctx context.Context, c conn, ids []string) (map[string]workshop.TechnicianLoad, error) {
	loads := map[string]workshop.TechnicianLoad{}
	distinct := distinctArgs(ids)
	if len(distinct) == 0 {
		return loads, nil
	}
	rows, err := c.query(ctx, `SELECT id, name, location_id, wip_limit, deleted_at IS NOT NULL FROM technicians WHERE id IN (`+
		placeholders(len(distinct))+`) ORDER BY id`+c.s.forUpdate(), distinct...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var t workshop.TechnicianLoad
		if err := rows.Scan(&id, &t.Name, &t.LocationID, &t.WIPLimit, &t.Deleted); err != nil {
			return nil, err
		}
		loads[id] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = c.query(ctx, `SELECT a.tech_id, a.step_id FROM step_technicians a JOIN steps s ON s.id = a.step_id
		WHERE a.tech_id IN (`+placeholders(len(distinct))+`) AND `+stepHoldsWork, distinct...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var techID, stepID string
		if err := rows.Scan(&techID, &stepID); err != nil {
			return nil, err
		}
		if t, ok := loads[techID]; ok {
			t.InProgress = append(t.InProgress, stepID)
			loads[techID] = t
		}
	}
	return loads, rows.Err()
}

// baySlots reads the bays (not deleted) that step changes assign or start
// steps in, locked in id order, with the steps in progress in each; the
// numbers of those steps' jobs go into numbers.
func baySlots(ctx context.Context, c conn, ids []string, numbers map[string]string) (map[string]workshop.BaySlot, error) {
	slots := map[string]workshop.BaySlot{}
	distinct := distinctArgs(ids)
	if len(distinct) == 0 {
		return slots, nil
	}
	rows, err := c.query(ctx, `SELECT id, name, location_id, status FROM bays WHERE id IN (`+placeholders(len(distinct))+
		`) AND deleted_at IS NULL ORDER BY id`+c.s.forUpdate(), distinct...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		b := workshop.BaySlot{InProgress: map[string]string{}}
		if err := rows.Scan(&id, &b.Name, &b.LocationID, &b.Status); err != nil {
			return nil, err
		}
		slots[id] = b
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = c.query(ctx, `SELECT s.bay_id, s.id, s.job_id, j.job_number FROM steps s JOIN jobs j ON j.id = s.job_id
		WHERE s.bay_id IN (`+placeholders(len(distinct))+`) AND `+stepHoldsWork, distinct...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var bayID, stepID, jobID, number string
		if err := rows.Scan(&bayID, &stepID, &jobID, &number); err != nil {
			return nil, err
		}
		if b, ok := slots[bayID]; ok {
			b.InProgress[stepID] = jobID
			numbers[jobID] = number
		}
	}
	return slots, rows.Err()
}

// distinctArgs is ids without repeats, as query arguments.
func distinctArgs(ids []string) []any {
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, any(id)) {
			out = append(out, id)
		}
	}
	return out
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
