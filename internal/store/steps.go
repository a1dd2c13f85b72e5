package store

import (
	"context"
	"database/sql"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const stepColumns = `id, job_id, org_id, location_id, label, phase, scheduling_mode, estimated_duration, tech_ids, bay_id,
	status, started_at, completed_at, created_at, updated_at, service_code, not_before`

// stepInsert inserts steps rows of stepWidth values each, stepArgs's.
const (
	stepInsert = `INSERT INTO steps (` + stepColumns + `) VALUES `
	stepWidth  = 17
)

func stepArgs(args []any, st workshop.Step) []any {
	return append(args, st.ID, st.JobID, st.OrgID, st.LocationID, st.Label, st.Phase, st.SchedulingMode, st.EstimatedDuration,
		jsonText(st.TechIDs), st.BayID, st.Status, nullMicros(st.StartedAt), nullMicros(st.CompletedAt), st.CreatedAt, st.UpdatedAt,
		st.ServiceCode, offsetText(st.NotBefore))
}

func scanStep(sc scanner) (workshop.Step, error) {
	var st workshop.Step
	var bay, code, notBefore sql.NullString
	var started, completed sql.NullInt64
	err := sc.Scan(&st.ID, &st.JobID, &st.OrgID, &st.LocationID, &st.Label, &st.Phase, &st.SchedulingMode, &st.EstimatedDuration,
		jsonList[[]string]{&st.TechIDs}, &bay, &st.Status, &started, &completed, &st.CreatedAt, &st.UpdatedAt, &code, &notBefore)
	if err != nil {
		return st, err
	}
	st.BayID, st.StartedAt, st.CompletedAt, st.ServiceCode = strPtr(bay), microsPtr(started), microsPtr(completed), strPtr(code)
	st.NotBefore, err = offsetPtr(notBefore)
	return st, err
}

func jobSteps(ctx context.Context, c conn, jobID string) ([]workshop.Step, error) {
	rows, err := c.query(ctx, `SELECT `+stepColumns+` FROM steps WHERE job_id = ? ORDER BY phase, created_at, id`, jobID)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanStep)
}

// jobWrite is a job loaded for a write: locked, visible to the caller, in
// a location not mid-close.
func (s *Store) jobWrite(ctx context.Context, c conn, v Visibility, id string) (workshop.Job, error) {
	j, err := visibleJob(ctx, c, v, id, s.forUpdate())
	if err != nil {
		return j, err
	}
	_, err = openLocation(ctx, c, v, j.LocationID)
	return j, err
}

// rederive follows a change of a job's steps: it moves the job's steps
// version on (which the readers' step caches are checked against) and
// recomputes the job's status; when that changed, the job is updated and
// job.updated recorded too.
func rederive(ctx context.Context, c conn, j *workshop.Job, now workshop.Micros) error {
	counts, err := refreshSteps(ctx, c, []any{j.ID})
	if err != nil || !deriveStatus(j, counts[j.ID], now) {
		return err
	}
	if err := writeStatuses(ctx, c, []workshop.Job{*j}); err != nil {
		return err
	}
	return recordEvent(ctx, c, j.OrgID, j.LocationID, workshop.EventJobUpdated, j.UpdatedAt, jobRow(*j))
}

// refreshSteps moves on the steps version of each job (ids, distinct) and
// counts its steps by status.
func refreshSteps(ctx context.Context, c conn, ids []any) (map[string]workshop.StepCounts, error) {
	versions := make([]any, 0, 2*len(ids))
	for _, id := range ids {
		versions = append(versions, id, 1)
	}
	if _, err := c.exec(ctx, `INSERT INTO job_steps_versions (job_id, version) VALUES `+valueRows(len(ids), 2)+`
		ON CONFLICT (job_id) DO UPDATE SET version = job_steps_versions.version + 1`, versions...); err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, `SELECT job_id, status, COUNT(*) FROM steps WHERE job_id IN (`+placeholders(len(ids))+`)
		GROUP BY job_id, status`, ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := make(map[string]workshop.StepCounts, len(ids))
	for rows.Next() {
		var jobID, status string
		var n int
		if err := rows.Scan(&jobID, &status, &n); err != nil {
			return nil, err
		}
		cs := counts[jobID]
		switch status {
		case workshop.StepPending:
			cs.Pending = n
		case workshop.StepInProgress:
			cs.InProgress = n
		case workshop.StepCompleted:
			cs.Completed = n
		}
		counts[jobID] = cs
	}
	return counts, rows.Err()
}

// deriveStatus sets the job's status its steps give, with a later
// updatedAt, and tells whether it changed.
func deriveStatus(j *workshop.Job, counts workshop.StepCounts, now workshop.Micros) bool {
	status := workshop.DeriveJobStatus(j.DeliveredAt != nil, j.CancelledAt != nil, j.ArrivalTime != nil, counts)
	if status == j.Status {
		return false
	}
	j.Status, j.UpdatedAt = status, workshop.NextMicros(now.Time(), j.UpdatedAt)
	return true
}

// writeStatuses writes the jobs' derived statuses and their history. The
// jobs are written by an upsert of their rows that sets only the status and
// the time: one statement for any number of jobs, and, naming no other
// column, it leaves the indexes on them (the job number's among them)
// untouched.
func writeStatuses(ctx context.Context, c conn, jobs []workshop.Job) error {
	rows, history := make([]any, 0, len(jobs)*jobWidth), make([]any, 0, len(jobs)*statusWidth)
	for _, j := range jobs {
		rows, history = jobArgs(rows, j), statusArgs(history, j)
	}
	if _, err := c.exec(ctx, statusInsert+valueRows(len(jobs), statusWidth), history...); err != nil {
		return err
	}
	_, err := c.exec(ctx, jobInsert+valueRows(len(jobs), jobWidth)+`
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`, rows...)
	return err
}

// CreateStep adds a step to a job with its step.created event (and
// job.updated when the job's status changes, e.g. ready -> waiting).
func (s *Store) CreateStep(ctx context.Context, v Visibility, st workshop.Step, opts ...WriteOption) (workshop.Step, error) {
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Step, error) {
		j, err := s.jobWrite(ctx, c, v, st.JobID)
		if err != nil {
			return st, err
		}
		if j.Terminal() {
			return st, workshop.TerminalError(j, "its steps cannot change")
		}
		item, err := stepCatalogItem(ctx, c, j.LocationID, st.ServiceCode)
		if err != nil {
			return st, err
		}
		if st, err = workshop.CompleteStep(st, item); err != nil {
			return st, err
		}
		st.OrgID, st.LocationID = j.OrgID, j.LocationID
		if _, err := c.exec(ctx, stepInsert+valueRows(1, stepWidth), stepArgs(nil, st)...); err != nil {
			return st, err
		}
		if err := recordEvent(ctx, c, st.OrgID, st.LocationID, workshop.EventStepCreated, st.CreatedAt, stepRow(st)); err != nil {
			return st, err
		}
		return st, rederive(ctx, c, &j, st.CreatedAt)
	})
}

// StepPatch is a change to a step; nil fields stay as they are.
type StepPatch = workshop.StepPatch

// PatchStep changes a step: optimistic concurrency on updatedAt, the
// status machine, assignment checks (same location, bay not in
// maintenance, technicians' work-in-progress limits), the job's derived
// status and the events, in one transaction. A patch that changes nothing
// keeps updatedAt and records nothing. Concurrent patches are written
// together (stepwrite.go).
func (s *Store) PatchStep(ctx context.Context, v Visibility, jobID, stepID string, p StepPatch, now workshop.Micros) (workshop.Step, error) {
	r := &patchReq{queued: newQueued(ctx), v: v, jobID: jobID, stepID: stepID, patch: p, now: now}
	err := s.patches.do(ctx, r)
	return r.step, err
}

// writeSteps writes changed steps, in one upsert of their rows whatever
// their number.
func writeSteps(ctx context.Context, c conn, steps []workshop.Step) error {
	args := make([]any, 0, len(steps)*stepWidth)
	for _, st := range steps {
		args = stepArgs(args, st)
	}
	_, err := c.exec(ctx, stepInsert+valueRows(len(steps), stepWidth)+`
		ON CONFLICT (id) DO UPDATE SET label = excluded.label, phase = excluded.phase, scheduling_mode = excluded.scheduling_mode,
		estimated_duration = excluded.estimated_duration, tech_ids = excluded.tech_ids, bay_id = excluded.bay_id,
		status = excluded.status, started_at = excluded.started_at, completed_at = excluded.completed_at,
		not_before = excluded.not_before, updated_at = excluded.updated_at`, args...)
	return err
}

// stepEvent is the event of a step's change from prev to next.
func stepEvent(prev, next workshop.Step) string {
	if next.Status == workshop.StepCompleted && prev.Status != workshop.StepCompleted {
		return workshop.EventStepCompleted
	}
	return workshop.EventStepUpdated
}

// assignTechnicians mirrors steps' technicians into step_technicians, in
// two statements for any number of steps.
func assignTechnicians(ctx context.Context, c conn, steps []workshop.Step) error {
	if len(steps) == 0 {
		return nil
	}
	ids, pairs := make([]any, 0, len(steps)), []any{}
	for _, st := range steps {
		ids = append(ids, st.ID)
		for _, t := range st.TechIDs {
			pairs = append(pairs, st.ID, t)
		}
	}
	if _, err := c.exec(ctx, `DELETE FROM step_technicians WHERE step_id IN (`+placeholders(len(ids))+`)`, ids...); err != nil {
		return err
	}
	if len(pairs) == 0 {
		return nil
	}
	_, err := c.exec(ctx, `INSERT INTO step_technicians (step_id, tech_id) VALUES `+valueRows(len(pairs)/2, 2), pairs...)
	return err
}
