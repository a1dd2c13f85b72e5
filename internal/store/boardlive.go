package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The live board's reads (the application's board page and wall display):
// what is on the floor now, bounded so that a render costs the same for a
// location with ten open jobs as for one with ten thousand; and the cheap
// reads the application's change watcher polls.

// BoardOpenStatuses are the job statuses the board lists, in the order a
// job goes through them.
var BoardOpenStatuses = []string{workshop.JobBooked, workshop.JobArrived, workshop.JobInProgress, workshop.JobWaiting, workshop.JobReady}

// BoardView is a location's floor: the first jobs of each open status, the
// steps in progress, technicians and bays, read in one snapshot.
type BoardView struct {
	// Jobs are, per open status, its oldest jobs (by createdAt, id), at
	// most the perStatus asked for; Board's counts tell how many more.
	Jobs map[string][]BoardJob
	// Active are the steps in progress at the location, each with its
	// job's number (the steps of every job in progress, listed or not).
	Active []BoardStep
	Techs  []BoardTech
	Bays   []BoardBayRow
}

// BoardJob is a job as the board shows it.
type BoardJob struct {
	ID, JobNumber, Status string
	Plate, Make, Model    *string
	PromiseTime           *workshop.OffsetTime
	Priority              string
	CreatedAt             workshop.Micros
	// PlanLateMinutes is set when the promise watch last saw the plan
	// finish the job after its promise (job.at_risk), by how much.
	PlanLateMinutes *int
	// ExpectedArrival is a booking's drop-off time (nil: none).
	ExpectedArrival *time.Time
}

// BoardStep is a step in progress.
type BoardStep struct {
	ID, JobID, JobNumber, Label string
	TechIDs                     []string
	BayID                       *string
	StartedAt                   *workshop.Micros
}

// BoardTech is a technician with whether they are clocked in now.
type BoardTech struct {
	ID, Name, Status string
	ClockedIn        bool
}

// BoardBayRow is a bay with the number of the job whose step in progress
// occupies it (nil: free).
type BoardBayRow struct {
	ID, Name, Status string
	JobNumber        *string
}

// BoardFilter narrows the board's jobs to those with an unfinished step
// assigned to a technician, or to a bay (either empty: no filter). A step
// not yet started counts as well as one in progress: the advisor asks
// "what is on Anna's list", not only "what is Anna doing now".
type BoardFilter struct{ TechID, BayID string }

// where is the filter as conditions on jobs j, with their arguments. The
// technician is matched as a quoted member of the step's JSON list.
func (f BoardFilter) where() (string, []any) {
	var where string
	var args []any
	if f.TechID != "" {
		where += ` AND EXISTS (SELECT 1 FROM steps s WHERE s.job_id = j.id AND s.status <> 'completed' AND s.tech_ids LIKE ? ESCAPE '\')`
		args = append(args, `%"`+likeEscaper.Replace(f.TechID)+`"%`)
	}
	if f.BayID != "" {
		where += ` AND EXISTS (SELECT 1 FROM steps s WHERE s.job_id = j.id AND s.status <> 'completed' AND s.bay_id = ?)`
		args = append(args, f.BayID)
	}
	return where, args
}

// boardActiveLimit bounds the steps in progress read: far above what the
// technicians' work-in-progress limits allow at one location.
const boardActiveLimit = 1000

// BoardView reads the location's floor. Each status's jobs are a range of
// the index jobs_location_status_created (with the promise watch's
// verdict, job_promises by its key); the steps in progress are those
// of the jobs in progress (a job has a step in progress exactly when it is
// in progress), through the same index and steps_job; technicians and bays
// through their location indexes, clock-ins through attendance_open. Its
// cost grows with the open work and the resources, never with history.
func (s *Store) BoardView(ctx context.Context, locationID string, perStatus int, f BoardFilter) (BoardView, error) {
	v := BoardView{Jobs: map[string][]BoardJob{}}
	only, onlyArgs := f.where()
	err := s.readTx(ctx, func(c conn) error {
		for _, status := range BoardOpenStatuses {
			rows, err := c.query(ctx, `SELECT j.id, j.job_number, j.status, j.vehicle_plate, j.vehicle_make, j.vehicle_model, j.promise_time,
					j.priority, j.created_at, p.late_minutes, j.expected_arrival
				FROM jobs j LEFT JOIN job_promises p ON p.job_id = j.id
				WHERE j.location_id = ? AND j.status = ?`+only+` ORDER BY j.created_at, j.id LIMIT ?`,
				append(append([]any{locationID, status}, onlyArgs...), perStatus)...)
			if err != nil {
				return err
			}
			jobs, err := collect(rows, func(sc scanner) (BoardJob, error) {
				var j BoardJob
				var plate, mk, model, promise, expected sql.NullString
				var late sql.NullInt64
				if err := sc.Scan(&j.ID, &j.JobNumber, &j.Status, &plate, &mk, &model, &promise, &j.Priority, &j.CreatedAt, &late,
					&expected); err != nil {
					return j, err
				}
				if expected.Valid {
					t, err := time.Parse(time.RFC3339Nano, expected.String)
					if err != nil {
						return j, err
					}
					j.ExpectedArrival = &t
				}
				if late.Valid {
					n := int(late.Int64)
					j.PlanLateMinutes = &n
				}
				j.Plate, j.Make, j.Model = strPtr(plate), strPtr(mk), strPtr(model)
				var err error
				j.PromiseTime, err = offsetPtr(promise)
				return j, err
			})
			if err != nil {
				return err
			}
			v.Jobs[status] = jobs
		}
		rows, err := c.query(ctx, `SELECT s.id, s.job_id, j.job_number, s.label, s.tech_ids, s.bay_id, s.started_at
			FROM jobs j JOIN steps s ON s.job_id = j.id
			WHERE j.location_id = ? AND j.status = 'in_progress' AND s.status = 'in_progress'
			ORDER BY s.started_at, s.id LIMIT ?`, locationID, boardActiveLimit)
		if err != nil {
			return err
		}
		if v.Active, err = collect(rows, func(sc scanner) (BoardStep, error) {
			var st BoardStep
			var bay sql.NullString
			var started sql.NullInt64
			err := sc.Scan(&st.ID, &st.JobID, &st.JobNumber, &st.Label, jsonList[[]string]{&st.TechIDs}, &bay, &started)
			st.BayID, st.StartedAt = strPtr(bay), microsPtr(started)
			return st, err
		}); err != nil {
			return err
		}
		rows, err = c.query(ctx, `SELECT t.id, t.name, t.status,
				CASE WHEN EXISTS (SELECT 1 FROM attendance a WHERE a.tech_id = t.id AND a.clock_out IS NULL) THEN 1 ELSE 0 END
			FROM technicians t WHERE t.location_id = ? AND t.deleted_at IS NULL ORDER BY t.created_at, t.id`, locationID)
		if err != nil {
			return err
		}
		if v.Techs, err = collect(rows, func(sc scanner) (BoardTech, error) {
			var t BoardTech
			var in int
			err := sc.Scan(&t.ID, &t.Name, &t.Status, &in)
			t.ClockedIn = in == 1
			return t, err
		}); err != nil {
			return err
		}
		rows, err = c.query(ctx, `SELECT b.id, b.name, b.status, (SELECT j.job_number FROM jobs j WHERE j.id = `+bayOccupant("job_id")+`)
			FROM bays b WHERE b.location_id = ? AND b.deleted_at IS NULL ORDER BY b.created_at, b.id`, locationID)
		if err != nil {
			return err
		}
		v.Bays, err = collect(rows, func(sc scanner) (BoardBayRow, error) {
			var b BoardBayRow
			var job sql.NullString
			err := sc.Scan(&b.ID, &b.Name, &b.Status, &job)
			b.JobNumber = strPtr(job)
			return b, err
		})
		return err
	})
	return v, err
}

// EventMark is where an outbox event happened.
type EventMark struct {
	Seq        int64
	LocationID string
}

// EventMarksAfter lists the seq and location of outbox events after seq,
// oldest first: the change watcher's tail of the outbox, without the
// events' data.
func (s *Store) EventMarksAfter(ctx context.Context, seq int64, limit int) ([]EventMark, error) {
	rows, err := s.read().query(ctx, `SELECT seq, location_id FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (EventMark, error) {
		var m EventMark
		return m, sc.Scan(&m.Seq, &m.LocationID)
	})
}

// LastEventSeq is the outbox's highest seq, 0 when it is empty.
func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.read().queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&seq)
	return seq, err
}

// PlanVersions reads the plan versions of locations (migration 00009:
// triggers move them with every write to a location's jobs, steps,
// technicians, bays, catalog and settings, by any process); a location
// without a row is left out.
func (s *Store) PlanVersions(ctx context.Context, locationIDs []string) (map[string]int64, error) {
	out := make(map[string]int64, len(locationIDs))
	if len(locationIDs) == 0 {
		return out, nil
	}
	// The list is padded (with its first id) to a power of two, so that
	// SQLite's statement cache keeps a handful of statements, not one per
	// number of locations watched.
	n := 8
	for n < len(locationIDs) {
		n *= 2
	}
	args := make([]any, n)
	for i := range args {
		args[i] = locationIDs[0]
		if i < len(locationIDs) {
			args[i] = locationIDs[i]
		}
	}
	rows, err := s.read().query(ctx, `SELECT location_id, version FROM plan_versions WHERE location_id IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return nil, err
	}
	pairs, err := collect(rows, func(sc scanner) (EventMark, error) {
		var m EventMark
		return m, sc.Scan(&m.LocationID, &m.Seq)
	})
	for _, p := range pairs {
		out[p.LocationID] = p.Seq
	}
	return out, err
}
