package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// DayCloseItem is one open item of a close's checklist, with what its
// action needs.
type DayCloseItem struct {
	Kind      workshop.CloseItemKind
	ID        string // the step's, the technician's or the job's
	JobID     string // of a step, a promise or a booking
	JobNumber string
	Plate     string
	Label     string          // the step's label or the technician's name
	Since     workshop.Micros // the step's start, the clock-in, the promise
	UpdatedAt workshop.Micros // the step's or the job's version
	// CarriedOver: the closer left it open for the next day.
	CarriedOver bool
}

// DayCloseView is a location's close as its page shows it: the close
// under way (nil when the day is open) with what it concerns, its
// checklist and its summary so far, and the latest closes.
type DayCloseView struct {
	Location workshop.Location
	Current  *workshop.DayClose
	Scope    workshop.CloseScope // of Current, as of the read
	Items    []DayCloseItem
	SoFar    workshop.DaySummary
	Recent   []workshop.DayClose
}

// recentCloses is how many finished closes the page lists.
const recentCloses = 30

// DayCloseView reads the location's close, as of now, in one snapshot.
func (s *Store) DayCloseView(ctx context.Context, orgID, locationID string) (DayCloseView, error) {
	var view DayCloseView
	err := s.readTx(ctx, func(c conn) error {
		loc, err := locationIn(ctx, c, locationID)
		if err != nil {
			return err
		}
		if loc.OrgID != orgID {
			return workshop.NotFound("location")
		}
		view = DayCloseView{Location: loc}
		rows, err := c.query(ctx, `SELECT `+dayCloseColumns+` FROM day_closes WHERE location_id = ? AND finished_at IS NOT NULL
			ORDER BY started_at DESC LIMIT `+strconv.Itoa(recentCloses), locationID)
		if err != nil {
			return err
		}
		if view.Recent, err = collect(rows, scanDayClose); err != nil {
			return err
		}
		d, err := openDayClose(ctx, c, locationID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		view.Current = &d
		scope, err := s.closeScope(ctx, c, loc, d.BusinessDate)
		if err != nil {
			return err
		}
		view.Scope = scope
		if view.Items, err = dayCloseItems(ctx, c, loc.ID, d.ID, scope); err != nil {
			return err
		}
		view.SoFar, err = daySummary(ctx, c, loc.ID, scope)
		view.SoFar.CarriedOver = len(view.Items) - undecided(view.Items)
		return err
	})
	return view, err
}

// DayCloseScope is what the location's close under way concerns now;
// not_found when no close is under way.
func (s *Store) DayCloseScope(ctx context.Context, locationID string) (workshop.CloseScope, error) {
	var scope workshop.CloseScope
	err := s.readTx(ctx, func(c conn) error {
		loc, err := locationIn(ctx, c, locationID)
		if err != nil {
			return err
		}
		d, err := openDayClose(ctx, c, locationID)
		if errors.Is(err, sql.ErrNoRows) {
			return workshop.Errorf(workshop.CodeNotFound, "No day close is under way at this location.")
		}
		if err != nil {
			return err
		}
		scope, err = s.closeScope(ctx, c, loc, d.BusinessDate)
		return err
	})
	return scope, err
}

// DayClose reads one close of the organisation.
func (s *Store) DayClose(ctx context.Context, orgID, id string) (workshop.DayClose, error) {
	d, err := scanDayClose(s.read().queryRow(ctx, `SELECT `+dayCloseColumns+` FROM day_closes WHERE id = ? AND org_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return d, workshop.NotFound("day close")
	}
	return d, err
}

// stepInProgress is the condition of the partial index steps_in_progress
// (migration 00030), written out so that SQLite sees that it applies.
const stepInProgress = `status = 'in_progress'`

// LeftOpen counts what is still open at the location from before the
// instant before: the steps in progress started before it and the
// technicians clocked in since before it.
func (s *Store) LeftOpen(ctx context.Context, locationID string, before workshop.Micros) (steps, clockedIn int, err error) {
	err = s.read().queryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM steps WHERE location_id = ? AND `+stepInProgress+` AND started_at < ?),
		(SELECT COUNT(*) FROM attendance a JOIN technicians t ON t.id = a.tech_id
			WHERE t.location_id = ? AND a.clock_out IS NULL AND a.clock_in_us < ?)`,
		locationID, int64(before), locationID, int64(before)).Scan(&steps, &clockedIn)
	return steps, clockedIn, err
}

// DayClosed tells whether a close of the location's local date date has
// finished.
func (s *Store) DayClosed(ctx context.Context, locationID, date string) (bool, error) {
	var n int
	err := s.read().queryRow(ctx, `SELECT COUNT(*) FROM day_closes WHERE location_id = ? AND business_date = ? AND finished_at IS NOT NULL`,
		locationID, date).Scan(&n)
	return n > 0, err
}

// CarriedItem is an item a close left open for the next day, with who
// decided so and when.
type CarriedItem struct {
	DayCloseItem
	DecidedAt workshop.Micros
	DecidedBy string // a user's id; "" when not recorded
}

// CarriedItems lists what close closeID of the organisation left open for
// the next day, in the order it was decided, named as the steps, jobs and
// technicians are now. Once the close is finished these are the items its
// summary counts (FinishDayClose drops the rows of those resolved before
// the finish); a close finished before that rule may have more.
func (s *Store) CarriedItems(ctx context.Context, orgID, closeID string) ([]CarriedItem, error) {
	rows, err := s.read().query(ctx, `SELECT co.item_kind, co.item_id, co.decided_at, co.decided_by,
			COALESCE(sj.id, j.id), COALESCE(sj.job_number, j.job_number), COALESCE(sj.vehicle_plate, j.vehicle_plate),
			COALESCE(st.label, t.name)
		FROM day_close_carryovers co JOIN day_closes d ON d.id = co.close_id
			LEFT JOIN steps st ON co.item_kind = 'step' AND st.id = co.item_id
			LEFT JOIN jobs sj ON sj.id = st.job_id
			LEFT JOIN jobs j ON co.item_kind IN ('promise', 'booking') AND j.id = co.item_id
			LEFT JOIN technicians t ON co.item_kind = 'attendance' AND t.id = co.item_id
		WHERE co.close_id = ? AND d.org_id = ?
		ORDER BY co.decided_at, co.item_kind, co.item_id`, closeID, orgID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (CarriedItem, error) {
		var it CarriedItem
		var by, jobID, number, plate, label sql.NullString
		err := sc.Scan(&it.Kind, &it.ID, &it.DecidedAt, &by, &jobID, &number, &plate, &label)
		it.DecidedBy, it.JobID, it.JobNumber, it.Plate, it.Label = by.String, jobID.String, number.String, plate.String, label.String
		it.CarriedOver = true
		return it, err
	})
}

// CarryOver records that an open item of the location's close under way
// is left for the next day. Sent twice, it is recorded once.
func (s *Store) CarryOver(ctx context.Context, orgID, locationID string, kind workshop.CloseItemKind, itemID, by string) error {
	if !kind.Valid() {
		return workshop.Invalid("kind", "Unknown kind of open item %q.", kind)
	}
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		d, err := openDayClose(ctx, c, locationID)
		if errors.Is(err, sql.ErrNoRows) || err == nil && d.OrgID != orgID {
			return struct{}{}, workshop.Errorf(workshop.CodeNotFound, "No day close is under way at this location.")
		}
		if err != nil {
			return struct{}{}, err
		}
		_, err = c.exec(ctx, `INSERT INTO day_close_carryovers (close_id, item_kind, item_id, decided_at, decided_by) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (close_id, item_kind, item_id) DO NOTHING`, d.ID, string(kind), itemID, workshop.MicrosOf(s.now()), nullString(by))
		return struct{}{}, err
	})
	return err
}

// dayCloseItems is the checklist of close closeID at the location: what
// the date left open (begun before it ended, whatever began since is
// another day's), each marked when the closer carried it over.
func dayCloseItems(ctx context.Context, c conn, locationID, closeID string, scope workshop.CloseScope) ([]DayCloseItem, error) {
	end := workshop.MicrosOf(scope.End)
	steps, err := stepsInProgress(ctx, c, locationID, end)
	if err != nil {
		return nil, err
	}
	clocked, err := stillClockedIn(ctx, c, locationID, end)
	if err != nil {
		return nil, err
	}
	jobs, err := jobsToDecide(ctx, c, locationID, scope)
	if err != nil {
		return nil, err
	}
	items := append(append(steps, clocked...), jobs...)
	carried, err := carriedOver(ctx, c, closeID)
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		items[i].CarriedOver = carried[string(it.Kind)+" "+it.ID]
	}
	return items, nil
}

// stepsInProgress are the location's steps in progress started before
// end.
func stepsInProgress(ctx context.Context, c conn, locationID string, end workshop.Micros) ([]DayCloseItem, error) {
	rows, err := c.query(ctx, `SELECT s.id, s.job_id, j.job_number, j.vehicle_plate, s.label, s.started_at, s.updated_at
		FROM steps s JOIN jobs j ON j.id = s.job_id WHERE s.location_id = ? AND s.`+stepInProgress+` AND s.started_at < ?
		ORDER BY s.started_at, s.id`, locationID, end)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (DayCloseItem, error) {
		it := DayCloseItem{Kind: workshop.CloseStepInProgress}
		var plate sql.NullString
		var started sql.NullInt64
		err := sc.Scan(&it.ID, &it.JobID, &it.JobNumber, &plate, &it.Label, &started, &it.UpdatedAt)
		it.Plate, it.Since = plate.String, workshop.Micros(started.Int64)
		return it, err
	})
}

// stillClockedIn are the location's technicians clocked in since before
// end.
func stillClockedIn(ctx context.Context, c conn, locationID string, end workshop.Micros) ([]DayCloseItem, error) {
	rows, err := c.query(ctx, `SELECT a.tech_id, t.name, a.clock_in_us, a.updated_at FROM attendance a JOIN technicians t ON t.id = a.tech_id
		WHERE a.location_id = ? AND a.clock_out IS NULL AND a.clock_in_us < ? ORDER BY t.name, a.tech_id`, locationID, end)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (DayCloseItem, error) {
		it := DayCloseItem{Kind: workshop.CloseClockedIn}
		err := sc.Scan(&it.ID, &it.Label, &it.Since, &it.UpdatedAt)
		return it, err
	})
}

// jobsToDecide are the open jobs promised before the date's end: the
// domain's CloseScope.JobItem keeps those that are the date's to decide,
// missed promises and missed bookings.
func jobsToDecide(ctx context.Context, c conn, locationID string, scope workshop.CloseScope) ([]DayCloseItem, error) {
	rows, err := c.query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE location_id = ? AND status IN (?, ?, ?, ?)
		AND promise_time_us < ? ORDER BY promise_time_us, id`, locationID, workshop.JobBooked, workshop.JobArrived,
		workshop.JobInProgress, workshop.JobWaiting, scope.End.UnixMicro())
	if err != nil {
		return nil, err
	}
	jobs, err := collect(rows, scanJob)
	if err != nil {
		return nil, err
	}
	var items []DayCloseItem
	for _, j := range jobs {
		kind := scope.JobItem(j)
		if kind == "" {
			continue
		}
		since := j.PromiseTime
		if kind == workshop.CloseBookingMissed {
			since = j.ExpectedAt()
		}
		it := DayCloseItem{Kind: kind, ID: j.ID, JobID: j.ID, JobNumber: j.JobNumber, Since: workshop.MicrosOf(since.Time),
			UpdatedAt: j.UpdatedAt}
		if j.VehiclePlate != nil {
			it.Plate = *j.VehiclePlate
		}
		items = append(items, it)
	}
	return items, nil
}

func carriedOver(ctx context.Context, c conn, closeID string) (map[string]bool, error) {
	rows, err := c.query(ctx, `SELECT item_kind, item_id FROM day_close_carryovers WHERE close_id = ?`, closeID)
	if err != nil {
		return nil, err
	}
	keys, err := collect(rows, func(sc scanner) (string, error) {
		var kind, id string
		err := sc.Scan(&kind, &id)
		return kind + " " + id, err
	})
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out, err
}
