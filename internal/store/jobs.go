package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const jobColumns = `id, org_id, location_id, integration_id, external_key, job_number, vehicle_plate, vehicle_make,
	vehicle_model, promise_time, priority, source, arrival_time, insurance_claim, status, delivered_at, cancelled_at,
	cancel_reason_tags, created_at, updated_at, expected_arrival, customer_name, customer_phone, customer_email`

func scanJob(sc scanner) (workshop.Job, error) {
	var j workshop.Job
	var ext, plate, make_, model, promise, arrival, claim sql.NullString
	var delivered, cancelled sql.NullInt64
	var reasons, expected, name, phone, email sql.NullString
	err := sc.Scan(&j.ID, &j.OrgID, &j.LocationID, &j.IntegrationID, &ext, &j.JobNumber, &plate, &make_, &model,
		&promise, &j.Priority, &j.Source, &arrival, &claim, &j.Status, &delivered, &cancelled, &reasons, &j.CreatedAt, &j.UpdatedAt,
		&expected, &name, &phone, &email)
	if err != nil {
		return j, err
	}
	j.ExternalKey, j.VehiclePlate, j.VehicleMake, j.VehicleModel, j.InsuranceClaim =
		strPtr(ext), strPtr(plate), strPtr(make_), strPtr(model), strPtr(claim)
	j.CustomerName, j.CustomerPhone, j.CustomerEmail = strPtr(name), strPtr(phone), strPtr(email)
	if expected.Valid {
		t, err := time.Parse(time.RFC3339Nano, expected.String)
		if err != nil {
			return j, err
		}
		j.ExpectedArrival = &t
	}
	if j.PromiseTime, err = offsetPtr(promise); err != nil {
		return j, err
	}
	if j.ArrivalTime, err = offsetPtr(arrival); err != nil {
		return j, err
	}
	j.DeliveredAt, j.CancelledAt = microsPtr(delivered), microsPtr(cancelled)
	if reasons.Valid {
		err = jsonList[[]string]{&j.CancelReasons}.Scan(reasons.String)
	}
	return j, err
}

func strPtr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

func offsetPtr(n sql.NullString) (*workshop.OffsetTime, error) {
	if !n.Valid {
		return nil, nil
	}
	t, err := workshop.ParseOffsetTime(n.String)
	return &t, err
}

func offsetText(t *workshop.OffsetTime) sql.NullString {
	if t == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: t.String(), Valid: true}
}

func offsetMicros(t *workshop.OffsetTime) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

func reasonsText(r []string) sql.NullString {
	if r == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: jsonText(r), Valid: true}
}

// Visibility is whose records a caller sees: its organisation's, and only
// one location's for a location-scoped key.
type Visibility struct {
	OrgID, LocationID string
	// ClosingDay: the write is a day close's own (its checklist's
	// actions), which a location mid-close takes; every other job and
	// step write there is refused.
	ClosingDay bool
}

func (v Visibility) sees(orgID, locationID string) bool {
	return v.OrgID == orgID && (v.LocationID == "" || v.LocationID == locationID)
}

// forUpdate locks the rows read in a PostgreSQL write transaction; SQLite's
// write transactions hold the database's one write lock already.
func (s *Store) forUpdate() string {
	if s.dialect == postgresDialect {
		return " FOR UPDATE"
	}
	return ""
}

// shareLock share-locks the rows a PostgreSQL write transaction reads, as
// forUpdate locks them for update.
func (s *Store) shareLock() string {
	if s.dialect == postgresDialect {
		return " FOR SHARE"
	}
	return ""
}

// openLocation reads a location for a job or step write: a locationId
// validation error unless the caller sees it, day_close_in_progress while
// its day is mid-close. On PostgreSQL the row is share-locked, so a day
// close that starts waits for the writes in flight, and writes after it
// see it.
func openLocation(ctx context.Context, c conn, v Visibility, locationID string) (workshop.Location, error) {
	locs, err := locationsForWrite(ctx, c, []string{locationID})
	if err != nil {
		return workshop.Location{}, err
	}
	l, found := locs[locationID]
	return l.Location, writable(v, locationID, l, found)
}

// lockedLocation is a location read for a write, with its day state.
type lockedLocation struct {
	workshop.Location
	state string
}

// locationsForWrite reads the locations of ids (repeats allowed) for a
// write, share-locked on PostgreSQL, by id.
func locationsForWrite(ctx context.Context, c conn, ids []string) (map[string]lockedLocation, error) {
	locs := make(map[string]lockedLocation, len(ids))
	distinct := make([]any, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(distinct, any(id)) {
			distinct = append(distinct, id)
		}
	}
	if len(distinct) == 0 {
		return locs, nil
	}
	rows, err := c.query(ctx, `SELECT id, org_id, name, timezone, day_state FROM locations WHERE id IN (`+placeholders(len(distinct))+`)`+
		c.s.shareLock(), distinct...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var l lockedLocation
		if err := rows.Scan(&l.ID, &l.OrgID, &l.Name, &l.Timezone, &l.state); err != nil {
			return nil, err
		}
		locs[l.ID] = l
	}
	return locs, rows.Err()
}

// writable is openLocation's verdict on the location read for id (found:
// there was one).
func writable(v Visibility, id string, l lockedLocation, found bool) error {
	if !found || !v.sees(l.OrgID, l.ID) {
		return workshop.Invalid("locationId", "No location %s is visible to this key.", id)
	}
	if l.state == workshop.DayClosing && !v.ClosingDay {
		return workshop.Errorf(workshop.CodeDayCloseInProgress, "The day at %s is being closed; job and step writes resume when the close finishes.", l.Name)
	}
	return nil
}

// JobCreate is the outcome of a create: the job, and whether it was made
// (false: a job with its externalKey existed and is returned as stored).
type JobCreate struct {
	Job     workshop.Job
	Created bool
}

// CreateJob stores a new job with its job.created event. A job whose
// externalKey already exists in the (org, integration) namespace is returned
// as stored instead, whatever the rest of the body says. An empty JobNumber
// is assigned: the location's next RO-<year>-<seq> in its local year,
// skipping numbers taken explicitly, gap-free because the counter moves in
// the same transaction. stampArrival records the arrival as now, with the
// location's offset (a walk-in). Steps of j (the application's create)
// are added in the same transaction, each with its step.created event, as
// CreateStep adds them: the job is made with all of them or not at all.
// Concurrent creates are written in groups (jobwrite.go).
func (s *Store) CreateJob(ctx context.Context, j workshop.Job, stampArrival bool, opts ...WriteOption) (JobCreate, error) {
	key := keyOf(opts)
	// The existing job of an externalKey is read first, outside any write,
	// unless the answer is to be stored with a key (the write does it).
	if j.ExternalKey != nil && key == nil {
		if existing, err := s.existingJob(ctx, s.read(), j); err == nil || !errors.Is(err, sql.ErrNoRows) {
			return JobCreate{Job: existing}, err
		}
	}
	r := &createReq{queued: newQueued(ctx), job: j, stampArrival: stampArrival, key: key}
	err := s.creates.do(ctx, r)
	if isUniqueViolation(err, "external_key") {
		// A concurrent create with the same externalKey committed first
		// (PostgreSQL): answer with its job.
		existing, err := s.existingJob(ctx, s.read(), j)
		return JobCreate{Job: existing}, err
	}
	return r.result, err
}

func jobNumberTaken(n string) error {
	var v workshop.Validation
	v.AddCode("jobNumber", "taken", "jobNumber %s is already used in this location.", n)
	return v.Err()
}

// existingJob finds the job with j's externalKey, with its steps;
// sql.ErrNoRows when there is none. One the creating key cannot see (a
// location key of another location) is a validation error: the key is
// taken, and its job is not the caller's to see.
func (s *Store) existingJob(ctx context.Context, c conn, j workshop.Job) (workshop.Job, error) {
	found, err := scanJob(c.queryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE org_id = ? AND integration_id = ? AND external_key = ?`,
		j.OrgID, j.IntegrationID, *j.ExternalKey))
	if err != nil {
		return found, err
	}
	if found.LocationID != j.LocationID && j.LocationID != "" {
		var v workshop.Validation
		v.AddCode("externalKey", "taken", "externalKey %s is already used by a job of another location.", *j.ExternalKey)
		return found, v.Err()
	}
	found.Steps, err = jobSteps(ctx, c, found.ID)
	return found, err
}

// JobByExternalKey finds a visible job by its externalKey in a namespace.
func (s *Store) JobByExternalKey(ctx context.Context, v Visibility, integrationID, key string) (workshop.Job, error) {
	c := s.read()
	j, err := scanJob(c.queryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE org_id = ? AND integration_id = ? AND external_key = ?`,
		v.OrgID, integrationID, key))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !v.sees(j.OrgID, j.LocationID)) {
		return j, workshop.NotFound("job")
	}
	if err != nil {
		return j, err
	}
	j.Steps, err = jobSteps(ctx, c, j.ID)
	return j, err
}

// jobInsert inserts jobs rows of jobWidth values each, jobArgs's.
const (
	jobInsert = `INSERT INTO jobs (id, org_id, location_id, integration_id, external_key, job_number, vehicle_plate,
		vehicle_make, vehicle_model, promise_time, promise_time_us, priority, source, arrival_time, insurance_claim, status,
		delivered_at, cancelled_at, cancel_reason_tags, created_at, updated_at, expected_arrival, customer_name, customer_phone,
		customer_email) VALUES `
	jobWidth = 25
)

// jobArgs appends the values of j's jobs row to args.
func jobArgs(args []any, j workshop.Job) []any {
	return append(args, j.ID, j.OrgID, j.LocationID, j.IntegrationID, j.ExternalKey, j.JobNumber, j.VehiclePlate, j.VehicleMake,
		j.VehicleModel, offsetText(j.PromiseTime), offsetMicros(j.PromiseTime), j.Priority, j.Source, offsetText(j.ArrivalTime),
		j.InsuranceClaim, j.Status, nullMicros(j.DeliveredAt), nullMicros(j.CancelledAt), reasonsText(j.CancelReasons),
		j.CreatedAt, j.UpdatedAt, timeText(j.ExpectedArrival), j.CustomerName, j.CustomerPhone, j.CustomerEmail)
}

// timeText is an optional time as stored: RFC 3339 with its offset.
func timeText(t *time.Time) sql.NullString {
	if t == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: t.Format(time.RFC3339Nano), Valid: true}
}

// Job reads a job with its steps.
func (s *Store) Job(ctx context.Context, v Visibility, id string) (workshop.Job, error) {
	return s.jobWithSteps(ctx, v, `SELECT `+jobColumns+`, `+stepsVersion+` FROM jobs WHERE id = ?`, id)
}

// jobWithSteps reads a job with query, whose row is the job's columns, then
// those scanned into extra, then the job's steps version. The steps come
// from the process's cache when they are cached at that version (see
// stepCache); otherwise they are read and cached if no step write committed
// meanwhile (the version read after them is the one read before).
func (s *Store) jobWithSteps(ctx context.Context, v Visibility, query, id string, extra ...any) (workshop.Job, error) {
	c := s.read()
	var version int64
	j, err := v.seenJob(scanJob(withColumns{c.queryRow(ctx, query, id), append(extra, &version)}))
	if err != nil {
		return j, err
	}
	var ok bool
	if j.Steps, ok = s.steps.get(j.ID, version); ok {
		return j, nil
	}
	if j.Steps, err = jobSteps(ctx, c, j.ID); err != nil {
		return j, err
	}
	var after int64
	if err := c.queryRow(ctx, `SELECT `+stepsVersion+` FROM jobs WHERE id = ?`, j.ID).Scan(&after); err == nil && after == version {
		s.steps.put(j.ID, version, j.Steps)
	}
	return j, nil
}

// stepsVersion is the steps version of the job of a query on jobs.
const stepsVersion = `COALESCE((SELECT version FROM job_steps_versions WHERE job_id = jobs.id), 0)`

// withColumns scans more columns, the last ones, into dest.
type withColumns struct {
	sc   scanner
	dest []any
}

func (w withColumns) Scan(dest ...any) error { return w.sc.Scan(append(dest, w.dest...)...) }

// visibleJob reads a job the caller sees, or not_found.
func visibleJob(ctx context.Context, c conn, v Visibility, id, lock string) (workshop.Job, error) {
	return v.seenJob(scanJob(c.queryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`+lock, id)))
}

// seenJob is a job read as the caller may see it: not_found when there is
// none or it is not the caller's to see.
func (v Visibility) seenJob(j workshop.Job, err error) (workshop.Job, error) {
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !v.sees(j.OrgID, j.LocationID)) {
		return j, workshop.NotFound("job")
	}
	return j, err
}

// JobFilter selects jobs of a list.
type JobFilter struct {
	Visibility
	Statuses      []string
	ExternalKey   *string
	IntegrationID string // the namespace of ExternalKey
	UpdatedSince  *workshop.Micros
}

// Jobs lists jobs by (createdAt, id), one page at a time. With a status
// filter it reads a page of each status from its own run of the
// (location or org, status, created_at, id) index and merges them, so that
// a page of open jobs costs a page however many finished jobs come before
// it (migration 00010).
func (s *Store) Jobs(ctx context.Context, f JobFilter, p workshop.PageRequest) (workshop.Page[workshop.Job], error) {
	var where []string
	var args []any
	if f.LocationID != "" {
		where, args = append(where, "location_id = ?"), append(args, f.LocationID)
	}
	where, args = append(where, "org_id = ?"), append(args, f.OrgID)
	if f.ExternalKey != nil {
		where, args = append(where, "integration_id = ? AND external_key = ?"), append(args, f.IntegrationID, *f.ExternalKey)
	}
	if f.UpdatedSince != nil {
		where, args = append(where, "updated_at >= ?"), append(args, *f.UpdatedSince)
	}
	if p.After != nil {
		// A row value comparison, so that both databases seek the index
		// to the cursor instead of scanning from the start.
		where = append(where, "(created_at, id) > (?, ?)")
		args = append(args, p.After.CreatedAt, p.After.ID)
	}
	page := `SELECT ` + jobColumns + ` FROM jobs WHERE ` + strings.Join(where, " AND ")
	query, queryArgs := page, args
	if statuses := slices.Compact(slices.Sorted(slices.Values(f.Statuses))); len(statuses) > 0 {
		runs := make([]string, len(statuses))
		queryArgs = nil
		for i, st := range statuses {
			runs[i] = fmt.Sprintf(`SELECT * FROM (%s AND status = ? ORDER BY created_at, id LIMIT ?) AS run%d`, page, i)
			queryArgs = append(append(queryArgs, args...), st, p.Limit+1)
		}
		query = `SELECT * FROM (` + strings.Join(runs, " UNION ALL ") + `) AS runs`
	}
	return queryPage(ctx, s, query+` ORDER BY created_at, id`, queryArgs, p, scanJob, func(j workshop.Job) workshop.Cursor {
		return workshop.Cursor{CreatedAt: j.CreatedAt, ID: j.ID}
	})
}

// recordStatus appends the job's status to its history.
func recordStatus(ctx context.Context, c conn, j workshop.Job) error {
	_, err := c.exec(ctx, statusInsert+valueRows(1, statusWidth), statusArgs(nil, j)...)
	return err
}

// statusInsert inserts job_status_history rows of statusWidth values each,
// statusArgs's.
const (
	statusInsert = `INSERT INTO job_status_history (job_id, status, changed_at) VALUES `
	statusWidth  = 3
)

func statusArgs(args []any, j workshop.Job) []any { return append(args, j.ID, j.Status, j.UpdatedAt) }

// StatusChange is one entry of a job's status history.
type StatusChange = workshop.StatusChange
