package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// PlanData is everything a location's dispatch plan is computed from
// (contract section 8), read in one snapshot.
type PlanData struct {
	// Version is the location's plan version when the snapshot was taken:
	// the data is at least that new, so a plan cached under it is never
	// older than its key (triggers move it, migration 00009).
	Version  int64
	Timezone string
	Settings workshop.Settings
	Techs    []workshop.Technician
	Bays     []workshop.Bay
	// Jobs are the open jobs: not delivered or cancelled, with a step not
	// completed; each with every step, ordered by (phase, createdAt, id).
	Jobs []workshop.Job
	// Skills are the required skills of the location's catalog items by
	// service code (inactive items too: a step made from an item keeps
	// needing its skills after the item is retired).
	Skills map[string][]string
	// Estimates are the items' estimatedDuration by service code: a step
	// whose estimate is still its item's plans with the learned duration
	// (contract section 9).
	Estimates map[string]int
	// DurationVersion is the location's duration version, for
	// Store.DurationStats (durations.go).
	DurationVersion int64
	// Absences are every absence of the location's technicians and
	// MaintenanceWindows every maintenance window of its bays (past and
	// future alike, by start: the planner keeps to its horizon); the
	// technicians carry their WorkingHours.
	Absences           []workshop.Absence
	MaintenanceWindows []workshop.MaintenanceWindow
}

// PlanVersion reads a location's plan version, the cheap check of whether a
// plan computed before is still the plan.
func (s *Store) PlanVersion(ctx context.Context, locationID string) (int64, error) {
	var v int64
	err := s.read().queryRow(ctx, `SELECT version FROM plan_versions WHERE location_id = ?`, locationID).Scan(&v)
	return v, notFoundOr(err, "location")
}

// PlanData reads a location's plan data in one read transaction. It reads
// the open jobs through the (location_id, status) index, so its cost grows
// with the open work, not with the location's history.
func (s *Store) PlanData(ctx context.Context, locationID string) (PlanData, error) {
	var d PlanData
	err := s.readTx(ctx, func(c conn) error {
		var hours, breaks, planning string
		var buffer int
		if err := c.queryRow(ctx, `SELECT p.version, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes, w.planning_durations,
			w.promise_confidence, d.version
			FROM plan_versions p JOIN locations l ON l.id = p.location_id JOIN workshop_settings w ON w.location_id = l.id
			JOIN duration_versions d ON d.location_id = l.id
			WHERE p.location_id = ?`, locationID).Scan(&d.Version, &d.Timezone, &hours, &breaks, &buffer, &planning,
			&d.Settings.PromiseConfidence, &d.DurationVersion); err != nil {
			return notFoundOr(err, "location")
		}
		confidence := d.Settings.PromiseConfidence
		var err error
		if d.Settings, err = s.settings.parse(hours, breaks, buffer); err != nil {
			return err
		}
		d.Settings.PlanningDurations, d.Settings.PromiseConfidence = planning, confidence
		if d.Techs, err = planTechnicians(ctx, c, locationID); err != nil {
			return err
		}
		if d.Bays, err = planBays(ctx, c, locationID); err != nil {
			return err
		}
		if d.Skills, d.Estimates, err = planCatalog(ctx, c, locationID); err != nil {
			return err
		}
		if d.Absences, err = planAbsences(ctx, c, locationID); err != nil {
			return err
		}
		if d.MaintenanceWindows, err = planWindows(ctx, c, locationID); err != nil {
			return err
		}
		d.Jobs, err = openJobs(ctx, c, locationID)
		return err
	})
	return d, err
}

func planTechnicians(ctx context.Context, c conn, locationID string) ([]workshop.Technician, error) {
	rows, err := c.query(ctx, `SELECT id, name, skills, status, working_hours FROM technicians
		WHERE location_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.Technician, error) {
		t := workshop.Technician{LocationID: locationID}
		return t, sc.Scan(&t.ID, &t.Name, jsonList[[]string]{&t.Skills}, &t.Status, jsonList[[]workshop.WeeklyHours]{&t.WorkingHours})
	})
}

func planBays(ctx context.Context, c conn, locationID string) ([]workshop.Bay, error) {
	rows, err := c.query(ctx, `SELECT id, name, services, status FROM bays
		WHERE location_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.Bay, error) {
		b := workshop.Bay{LocationID: locationID}
		return b, sc.Scan(&b.ID, &b.Name, jsonList[[]string]{&b.Services}, &b.Status)
	})
}

func planCatalog(ctx context.Context, c conn, locationID string) (map[string][]string, map[string]int, error) {
	rows, err := c.query(ctx, `SELECT service_code, required_skills, estimated_duration FROM catalog_items WHERE location_id = ?`, locationID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	skills, estimates := map[string][]string{}, map[string]int{}
	for rows.Next() {
		var code string
		var required []string
		var estimate int
		if err := rows.Scan(&code, jsonList[[]string]{&required}, &estimate); err != nil {
			return nil, nil, err
		}
		skills[code], estimates[code] = required, estimate
	}
	return skills, estimates, rows.Err()
}

// openStatuses are the statuses of a job that may still have work to plan
// (ready means every step is completed).
var openStatuses = []any{workshop.JobBooked, workshop.JobArrived, workshop.JobInProgress, workshop.JobWaiting}

// openJobs reads the location's open jobs with their steps: the jobs by
// status (the index), then their steps in one query.
func openJobs(ctx context.Context, c conn, locationID string) ([]workshop.Job, error) {
	rows, err := c.query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE location_id = ? AND status IN (`+placeholders(len(openStatuses))+`)
		AND EXISTS (SELECT 1 FROM steps s WHERE s.job_id = jobs.id AND s.status <> 'completed')
		ORDER BY created_at, id`, append([]any{locationID}, openStatuses...)...)
	if err != nil {
		return nil, err
	}
	jobs, err := collect(rows, scanJob)
	if err != nil || len(jobs) == 0 {
		return jobs, err
	}
	index := make(map[string]int, len(jobs))
	for i, j := range jobs {
		index[j.ID] = i
	}
	rows, err = c.query(ctx, `SELECT `+stepColumns+` FROM steps
		WHERE location_id = ? AND job_id IN (SELECT id FROM jobs WHERE location_id = ? AND status IN (`+placeholders(len(openStatuses))+`))
		ORDER BY job_id, phase, created_at, id`, append([]any{locationID, locationID}, openStatuses...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		st, err := scanStep(rows)
		if err != nil {
			return nil, err
		}
		i, ok := index[st.JobID]
		if !ok {
			continue // a job with every step completed: not open
		}
		jobs[i].Steps = append(jobs[i].Steps, st)
	}
	return jobs, rows.Err()
}

// readTx runs fn in a read-only transaction: one snapshot for several
// queries (REPEATABLE READ on PostgreSQL; a SQLite read transaction sees
// one snapshot of the write-ahead log).
func (s *Store) readTx(ctx context.Context, fn func(c conn) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == postgresDialect {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.reader.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	err = fn(conn{s: s, ex: tx, stmts: s.readStmts, tx: tx})
	_ = tx.Rollback() // read-only: nothing to keep
	if s.readStmts != nil {
		// What the transaction ran unprepared is prepared for the next
		// read (SQLite): without it a read transaction's queries would be
		// parsed on every call.
		s.readStmts.prepareMissed(ctx)
	}
	return err
}

// CatalogItemsByCode reads the location's catalog items of codes (active
// or not), by service code.
func (s *Store) CatalogItemsByCode(ctx context.Context, locationID string, codes []string) (map[string]workshop.CatalogItem, error) {
	return catalogItemsByCode(ctx, s.read(), locationID, codes)
}

// catalogItemsByCode reads items; in a write on PostgreSQL it share-locks
// them, so that a step made from an item and the item's delete
// (DeleteUnusedCatalogItem) wait for each other rather than cross.
func catalogItemsByCode(ctx context.Context, c conn, locationID string, codes []string) (map[string]workshop.CatalogItem, error) {
	out := make(map[string]workshop.CatalogItem, len(codes))
	if len(codes) == 0 {
		return out, nil
	}
	args := []any{locationID}
	for _, code := range codes {
		args = append(args, code)
	}
	rows, err := c.query(ctx, `SELECT `+catalogColumns+` FROM catalog_items c WHERE c.location_id = ? AND c.service_code IN (`+
		placeholders(len(codes))+`)`+c.forShare(), args...)
	if err != nil {
		return nil, err
	}
	items, err := collect(rows, scanCatalogItem)
	for _, it := range items {
		out[it.ServiceCode] = it
	}
	return out, err
}

// stepCatalogItem is the location's catalog item a new step names, nil
// when it names none or one the location does not have.
func stepCatalogItem(ctx context.Context, c conn, locationID string, code *string) (*workshop.CatalogItem, error) {
	if code == nil {
		return nil, nil
	}
	items, err := catalogItemsByCode(ctx, c, locationID, []string{*code})
	if it, ok := items[*code]; ok {
		return &it, err
	}
	return nil, err
}
