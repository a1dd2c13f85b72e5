package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const dayCloseColumns = `id, org_id, location_id, business_date, started_at, started_by, finished_at, finished_by, summary`

func scanDayClose(sc scanner) (workshop.DayClose, error) {
	var d workshop.DayClose
	var startedBy, finishedBy, summary sql.NullString
	var finished sql.NullInt64
	if err := sc.Scan(&d.ID, &d.OrgID, &d.LocationID, &d.BusinessDate, &d.StartedAt, &startedBy, &finished, &finishedBy, &summary); err != nil {
		return d, err
	}
	d.StartedBy, d.FinishedBy = startedBy.String, finishedBy.String
	if finished.Valid {
		at := workshop.Micros(finished.Int64)
		d.FinishedAt = &at
	}
	if summary.Valid {
		d.Summary = &workshop.DaySummary{}
		if err := json.Unmarshal([]byte(summary.String), d.Summary); err != nil {
			return d, err
		}
	}
	return d, nil
}

// DayCloseStart is a close to start: the location, the local date it
// closes and who starts it ("" for an operator command).
type DayCloseStart struct {
	LocationID, BusinessDate, By string
}

// StartDayClose puts a location mid-close: from its commit every job and
// step write there is refused, on every process (they read the location's
// state in their own transaction, share-locked on PostgreSQL). A close
// already under way is returned as it is, whoever started it, so that a
// start sent twice, or by two users at once, makes one close.
func (s *Store) StartDayClose(ctx context.Context, st DayCloseStart) (workshop.DayClose, error) {
	return write(ctx, s, func(c conn) (workshop.DayClose, error) {
		var orgID string
		err := c.queryRow(ctx, `SELECT org_id FROM locations WHERE id = ?`+s.forUpdate(), st.LocationID).Scan(&orgID)
		if errors.Is(err, sql.ErrNoRows) {
			return workshop.DayClose{}, workshop.NotFound("location")
		}
		if err != nil {
			return workshop.DayClose{}, err
		}
		if d, err := openDayClose(ctx, c, st.LocationID); !errors.Is(err, sql.ErrNoRows) {
			return d, err
		}
		d := workshop.DayClose{ID: workshop.NewID(workshop.PrefixDayClose), OrgID: orgID, LocationID: st.LocationID,
			BusinessDate: st.BusinessDate, StartedAt: workshop.MicrosOf(s.now()), StartedBy: st.By}
		if _, err := c.exec(ctx, `UPDATE locations SET day_state = ? WHERE id = ?`, workshop.DayClosing, st.LocationID); err != nil {
			return d, err
		}
		_, err = c.exec(ctx, `INSERT INTO day_closes (id, org_id, location_id, business_date, started_at, started_by) VALUES (?, ?, ?, ?, ?, ?)`,
			d.ID, d.OrgID, d.LocationID, d.BusinessDate, d.StartedAt, nullString(st.By))
		return d, err
	})
}

func openDayClose(ctx context.Context, c conn, locationID string) (workshop.DayClose, error) {
	return scanDayClose(c.queryRow(ctx, `SELECT `+dayCloseColumns+` FROM day_closes WHERE location_id = ? AND finished_at IS NULL`, locationID))
}

// DayCloseFinish is a close to finish. Strict (the application) refuses
// while an item of the checklist has no decision; an operator's finish
// (`workshop admin day-close finish`) does not, and with no close under
// way records Today as the closed date, as it always has.
type DayCloseFinish struct {
	LocationID, By, Today string
	Strict                bool
}

// FinishDayClose ends the location's close: the day's summary is stored
// with it, and job and step writes resume. A close finished already
// (twice sent, or by another user) is not_found for a strict finish.
func (s *Store) FinishDayClose(ctx context.Context, f DayCloseFinish) (workshop.DayClose, error) {
	return write(ctx, s, func(c conn) (workshop.DayClose, error) {
		loc, err := locationIn(ctx, c, f.LocationID)
		if err != nil {
			return workshop.DayClose{}, err
		}
		d, err := openDayClose(ctx, c, f.LocationID)
		switch {
		case errors.Is(err, sql.ErrNoRows) && f.Strict:
			return d, workshop.Errorf(workshop.CodeNotFound, "No day close is under way at this location: it was finished already.")
		case errors.Is(err, sql.ErrNoRows):
			d = workshop.DayClose{LocationID: f.LocationID, BusinessDate: f.Today}
		case err != nil:
			return d, err
		default:
			if d, err = s.finishOpenClose(ctx, c, loc, d, f); err != nil {
				return d, err
			}
		}
		_, err = c.exec(ctx, `UPDATE locations SET day_state = ?, closed_date = ? WHERE id = ?`, workshop.DayOpen, d.BusinessDate, f.LocationID)
		return d, err
	})
}

func (s *Store) finishOpenClose(ctx context.Context, c conn, loc workshop.Location, d workshop.DayClose, f DayCloseFinish) (workshop.DayClose, error) {
	scope, err := s.closeScope(ctx, c, loc, d.BusinessDate)
	if err != nil {
		return d, err
	}
	items, err := dayCloseItems(ctx, c, loc.ID, d.ID, scope)
	if err != nil {
		return d, err
	}
	var carried []any // the items left open, as "kind id"
	for _, it := range items {
		switch {
		case it.CarriedOver:
			carried = append(carried, string(it.Kind)+" "+it.ID)
		case f.Strict:
			return d, workshop.Errorf(workshop.CodeInvalidTransition,
				"Every open item needs a decision before the day can be closed: %d still open.", undecided(items))
		}
	}
	// An item carried over and then resolved (its job got ready) was not
	// left for the next day: the close keeps the rows of those it counts.
	query := `DELETE FROM day_close_carryovers WHERE close_id = ?`
	if len(carried) > 0 {
		query += ` AND item_kind || ' ' || item_id NOT IN (` + placeholders(len(carried)) + `)`
	}
	if _, err := c.exec(ctx, query, append([]any{d.ID}, carried...)...); err != nil {
		return d, err
	}
	sum, err := daySummary(ctx, c, loc.ID, scope)
	if err != nil {
		return d, err
	}
	sum.CarriedOver = len(carried)
	at := workshop.MicrosOf(scope.Now)
	d.FinishedAt, d.FinishedBy, d.Summary = &at, f.By, &sum
	_, err = c.exec(ctx, `UPDATE day_closes SET finished_at = ?, finished_by = ?, summary = ? WHERE id = ?`,
		at, nullString(f.By), jsonText(sum), d.ID)
	return d, err
}

func undecided(items []DayCloseItem) int {
	n := 0
	for _, it := range items {
		if !it.CarriedOver {
			n++
		}
	}
	return n
}

// closeScope is what the close of the location's local date concerns
// now, on its calendar as of this transaction.
func (s *Store) closeScope(ctx context.Context, c conn, loc workshop.Location, date string) (workshop.CloseScope, error) {
	zone, err := loc.Zone()
	if err != nil {
		return workshop.CloseScope{}, err
	}
	var hours, breaks string
	var buffer int
	if err := c.queryRow(ctx, `SELECT operating_hours, breaks, bay_buffer_minutes FROM workshop_settings WHERE location_id = ?`,
		loc.ID).Scan(&hours, &breaks, &buffer); err != nil {
		return workshop.CloseScope{}, notFoundOr(err, "location")
	}
	settings, err := s.settings.parse(hours, breaks, buffer)
	if err != nil {
		return workshop.CloseScope{}, err
	}
	return workshop.NewCloseScope(workshop.NewCalendar(zone, settings), date, s.now())
}

// daySummary is what the location's date came to, as the close of scope
// sees it: the jobs delivered and the steps completed within the date
// (those the close completed among them), and the hours clocked in the
// shifts begun that day, as the timesheet counts them, a shift still open
// up to the time the close would record for it. Its carried-over count
// is the close's to give.
func daySummary(ctx context.Context, c conn, locationID string, scope workshop.CloseScope) (workshop.DaySummary, error) {
	var sum workshop.DaySummary
	lo, hi := workshop.MicrosOf(scope.Start), workshop.MicrosOf(scope.End)
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE location_id = ? AND delivered_at >= ? AND delivered_at < ?`,
		locationID, lo, hi).Scan(&sum.JobsDelivered); err != nil {
		return sum, err
	}
	if err := c.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(estimated_duration), 0) FROM steps
		WHERE location_id = ? AND status = ? AND completed_at >= ? AND completed_at < ?`,
		locationID, workshop.StepCompleted, lo, hi).Scan(&sum.StepsCompleted, &sum.MinutesEstimated); err != nil {
		return sum, err
	}
	rows, err := c.query(ctx, `SELECT `+attendanceColumns+` FROM attendance WHERE location_id = ? AND work_date = ?`, locationID, scope.Date)
	if err != nil {
		return sum, err
	}
	records, err := collect(rows, scanAttendance)
	if err != nil {
		return sum, err
	}
	for _, a := range records {
		m, _ := workshop.WorkedMinutes(a, scope.EndOf(a.ClockIn.Time))
		sum.MinutesClocked += m
	}
	return sum, nil
}
