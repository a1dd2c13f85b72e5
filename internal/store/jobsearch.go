package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// SearchJobs finds the jobs of a location by any part of three or more
// characters of the job number, the plate (in any case, spaces and dashes
// ignored), the make, the model, the external key (of any integration) or
// the customer's name, or of three or more digits of the customer's phone
// (its separators ignored, in the phone and in q); a shorter q by the
// start of one of these values (the phone's excepted) or of any word of
// the number, plate, make, model or customer's name ("dm" finds "B-DM 1001"; migration
// 00040 says what a word is, one rule in each database, and 00041 adds the
// customer): open jobs first, then newest first, at most limit. Both
// databases find them through trigram indexes (migration 00026, made again
// with the customer by 00041; on SQLite one of the open jobs and one of the
// closed ones since 00027), never a scan of every job: the open jobs through an
// index of the open ones only, the others newest first until limit are
// found, so a common term costs no more than a rare one. The closed jobs
// are read only when the open ones leave room: a term that many open jobs
// match costs one read.
func (s *Store) SearchJobs(ctx context.Context, v Visibility, locationID, q string, limit int) ([]workshop.Job, error) {
	q = strings.TrimSpace(strings.ReplaceAll(q, searchMark, ""))
	if q == "" || limit <= 0 || !v.sees(v.OrgID, locationID) {
		return []workshop.Job{}, nil
	}
	open, closed, args := s.searchQueries(v, locationID, q)
	jobs, err := s.searchPart(ctx, open, args, limit)
	if err != nil || len(jobs) == limit {
		return jobs, err
	}
	more, err := s.searchPart(ctx, closed, args, limit-len(jobs))
	if err != nil {
		return nil, err
	}
	for _, j := range more {
		// A job delivered between the two reads is in both: once is
		// enough.
		if !slices.ContainsFunc(jobs, func(o workshop.Job) bool { return o.ID == j.ID }) {
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// searchPart runs one of searchQueries's queries for at most limit jobs.
func (s *Store) searchPart(ctx context.Context, query string, args []any, limit int) ([]workshop.Job, error) {
	args = append(slices.Clip(args), limit)
	if s.dialect == postgresDialect {
		// PostgreSQL plans the query for its pattern every time, as an
		// unnamed statement: a generic plan, made once for any pattern
		// (pgx's statement cache), read every closed job backwards
		// through the creation index for a rare term (186 ms at 100,000
		// jobs, against 5 ms planned for the term), which at 100 searches
		// a second queued them for seconds.
		args = append([]any{pgx.QueryExecModeExec}, args...)
	}
	rows, err := s.read().query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanJob)
}

// searchQueries are SearchJobs's queries of a trimmed, non-empty q: of the
// open jobs and of the closed ones, each newest first, with the arguments
// they share; each takes its limit last.
func (s *Store) searchQueries(v Visibility, locationID, q string) (open, closed string, args []any) {
	plate, phone := plateKey(q), phoneKey(q)
	if s.dialect == postgresDialect {
		// NULL matches nothing: the plate of a q of spaces and dashes,
		// the words of a long q, the phone of a q that is not three
		// digits or more.
		var platePattern, wordPattern, phonePattern any
		if plate != "" {
			platePattern = likePattern(plate)
		}
		if phone != "" {
			phonePattern = likePattern(phone)
		}
		if short(q) {
			wordPattern = "%" + searchMark + likeEscaper.Replace(q) + "%"
		}
		// The open query names the partial indexes' predicate as it is,
		// so that the planner sees the indexes apply. It weighs a term's
		// estimated matches: a rare one is looked up in the trigram
		// index, a common one found walking the jobs newest first
		// (jobs_location_open_created, jobs_location_created) until
		// limit.
		found := `SELECT ` + jobColumns + ` FROM jobs WHERE location_id = ? AND org_id = ? AND (job_number ILIKE ?
			OR replace(replace(vehicle_plate, ' ', ''), '-', '') ILIKE ? OR vehicle_make ILIKE ?
			OR vehicle_model ILIKE ? OR external_key ILIKE ? OR customer_name ILIKE ? OR ` + searchPhone + ` ILIKE ?
			OR ` + searchWords + ` ILIKE ?) AND status `
		open = found + `NOT IN ('delivered', 'cancelled') ORDER BY created_at DESC, id DESC LIMIT ?`
		closed = found + `IN ('delivered', 'cancelled') ORDER BY created_at DESC, id DESC LIMIT ?`
		p := likePattern(q)
		return open, closed, []any{locationID, v.OrgID, p, platePattern, p, p, p, p, phonePattern, wordPattern}
	}
	match := `{number make model ext name} : ` + ftsPhrase(q)
	if plate != "" {
		match += ` OR plate : ` + ftsPhrase(plate)
	}
	if phone != "" {
		match += ` OR phone : ` + ftsPhrase(phone)
	}
	if short(q) {
		match += ` OR words : ` + ftsPhrase(q)
	}
	// job_search holds the closed jobs, job_search_open the others
	// (migration 00027); the closed query still names the status, as
	// PostgreSQL's does. CROSS JOIN keeps the index the outer loop: SQLite would otherwise
	// walk the location's jobs and ask the index of each. Both queries
	// read their index newest first (rowids grow with the jobs written)
	// and stop at limit: a term that every open job matches ("vw" at a VW
	// dealer) costs no more than a rare one.
	const found = `SELECT ` + jobColumns + ` FROM %[1]s s CROSS JOIN jobs j ON j.rowid = s.rowid
		WHERE %[1]s MATCH ? AND location_id = ? AND org_id = ?`
	open = fmt.Sprintf(found, "job_search_open") + ` ORDER BY s.rowid DESC LIMIT ?`
	closed = fmt.Sprintf(found, "job_search") + ` AND status IN ('delivered', 'cancelled') ORDER BY s.rowid DESC LIMIT ?`
	return open, closed, []any{match, locationID, v.OrgID}
}

// searchWords is PostgreSQL's text of the words of a job (migrations
// 00040 and 00041), as its trigram indexes hold it: every word after a
// searchMark.
const searchWords = `job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model, customer_name)`

// searchPhone is PostgreSQL's customer phone as searched (migration
// 00041), as its trigram indexes hold it: without its separators.
const searchPhone = `translate(customer_phone, '` + workshop.PhoneSeparators + `', '')`

// short is whether q is searched by the start of a value or a word (it is
// shorter than a trigram) rather than anywhere in a value.
func short(q string) bool { return utf8.RuneCountInString(q) < 3 }

// plateKey is a plate as searched: upper case, without spaces or dashes,
// as migration 00026 indexes it.
func plateKey(s string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(s))
}

// phoneKey is q as a phone is searched, its digits alone (migration 00041
// removes workshop.PhoneSeparators from the phone), or "" when q is not
// three digits or more with separators: a phone is found by a part of
// three digits or more.
func phoneKey(q string) string {
	var digits strings.Builder
	for _, r := range q {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case !strings.ContainsRune(workshop.PhoneSeparators, r):
			return ""
		}
	}
	if digits.Len() < 3 {
		return ""
	}
	return digits.String()
}

// searchMark starts every value of SQLite's job_search table (migration
// 00026), so that a short query anchored with it is a prefix search.
const searchMark = "\x02"

// ftsPhrase is q as an FTS5 phrase: a substring of any value when q has
// three characters or more, else a prefix, marked to the trigram's length.
func ftsPhrase(q string) string {
	if short(q) {
		q = strings.Repeat(searchMark, 3-utf8.RuneCountInString(q)) + q
	}
	return `"` + strings.ReplaceAll(q, `"`, `""`) + `"`
}

// likeEscaper escapes LIKE's wildcards, for a pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likePattern is q as an ILIKE pattern: a substring when q has three
// characters or more, else a prefix (as ftsPhrase).
func likePattern(q string) string {
	if short(q) {
		return likeEscaper.Replace(q) + "%"
	}
	return "%" + likeEscaper.Replace(q) + "%"
}

// DayState is a location's day: open, or closing (job and step writes are
// refused), with the last closed local date.
func (s *Store) DayState(ctx context.Context, v Visibility, locationID string) (workshop.DayState, error) {
	var orgID, state string
	var closed sql.NullString
	err := s.read().queryRow(ctx, `SELECT org_id, day_state, closed_date FROM locations WHERE id = ?`, locationID).Scan(&orgID, &state, &closed)
	if err == nil && !v.sees(orgID, locationID) {
		err = sql.ErrNoRows
	}
	if err != nil {
		return workshop.DayState{}, notFoundOr(err, "location")
	}
	return workshop.DayState{LocationID: locationID, State: state, ClosedDate: closed.String}, nil
}
