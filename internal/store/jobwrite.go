package store

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Creates are the busiest write, and on both databases most of a create's
// cost is per statement and per commit, not per row. On PostgreSQL the
// creates of a location also queue on its job-number counter, whose row
// stays locked until the commit (numbers are gap-free), so one create's
// round trips and commit are every other create's wait there.
//
// So a group of concurrent creates is read, decided and written by a
// handful of multi-row statements in one atomic write (groupWriter): each
// counter moves once per group, and on PostgreSQL its lock is held for one
// transaction per group. The second create of an externalKey or an
// Idempotency-Key in a group is deferred to a group of its own, where it
// finds what the first made.

// maxCreateGroup bounds a group. Each group size has statements of its own
// text, prepared once per connection: the bound bounds them too.
const maxCreateGroup = 64

type createReq struct {
	queued
	job          workshop.Job
	stampArrival bool
	key          *IdempotencyKey
	year         int       // of the job's number
	result       JobCreate // what the create answers
}

func newCreateWriter(s *Store) *groupWriter[*createReq] {
	return newGroupWriter(s, maxCreateGroup, writeCreates)
}

// writeCreates loads what a group of creates needs, decides each (the job
// of its externalKey, or a new job settled in its location) and writes the
// new jobs, numbered, with their history, events and Idempotency-Keys.
func writeCreates(c conn, group []*createReq) error {
	ctx := context.Background()
	l, err := loadCreates(ctx, c, group)
	if err != nil {
		return err
	}
	var decided, created []*createReq
	for _, r := range group {
		if r.deferred {
			continue
		}
		if r.refused, err = l.decide(r); err != nil {
			return err
		}
		if r.refused == nil {
			decided = append(decided, r)
			if r.result.Created {
				created = append(created, r)
			}
		}
	}
	if err := insertJobs(ctx, c, created); err != nil {
		return err
	}
	return storeKeys(ctx, c, decided)
}

// createLoad is what a group of creates is decided on.
type createLoad struct {
	locs     map[string]lockedLocation
	existing map[[3]string]workshop.Job         // by (org, integration, externalKey)
	keys     map[[2]string]bool                 // Idempotency-Keys stored, by (org, key)
	catalog  map[[2]string]workshop.CatalogItem // the steps' catalog items, by (location, service code)
}

// loadCreates reads the group's locations (share-locked on PostgreSQL, as
// openLocation does), the jobs of its externalKeys and its stored
// Idempotency-Keys, and defers each create of an externalKey or a key after
// the group's first.
func loadCreates(ctx context.Context, c conn, group []*createReq) (createLoad, error) {
	var l createLoad
	ids := make([]string, 0, len(group))
	externalKeys, keys := map[[3]string]bool{}, map[[2]string]bool{}
	for _, r := range group {
		ids = append(ids, r.job.LocationID)
		if k, ok := externalKeyOf(r.job); ok {
			r.deferred = externalKeys[k]
			externalKeys[k] = true
		}
		if r.key != nil {
			k := [2]string{r.key.OrgID, r.key.Key}
			r.deferred = r.deferred || keys[k]
			keys[k] = true
		}
	}
	var err error
	if l.locs, err = locationsForWrite(ctx, c, ids); err != nil {
		return l, err
	}
	if l.existing, err = jobsOfExternalKeys(ctx, c, externalKeys); err != nil {
		return l, err
	}
	if l.keys, err = storedKeys(ctx, c, keys); err != nil {
		return l, err
	}
	l.catalog, err = stepsCatalog(ctx, c, group)
	return l, err
}

// stepsCatalog reads the catalog items the steps of the group's jobs name.
func stepsCatalog(ctx context.Context, c conn, group []*createReq) (map[[2]string]workshop.CatalogItem, error) {
	codes := map[string][]string{} // by location
	for _, r := range group {
		for _, st := range r.job.Steps {
			if st.ServiceCode != nil {
				codes[r.job.LocationID] = append(codes[r.job.LocationID], *st.ServiceCode)
			}
		}
	}
	items := map[[2]string]workshop.CatalogItem{}
	for loc, list := range codes {
		found, err := catalogItemsByCode(ctx, c, loc, list)
		if err != nil {
			return nil, err
		}
		for code, it := range found {
			items[[2]string{loc, code}] = it
		}
	}
	return items, nil
}

// externalKeyOf is a job's externalKey in its namespace.
func externalKeyOf(j workshop.Job) ([3]string, bool) {
	if j.ExternalKey == nil {
		return [3]string{}, false
	}
	return [3]string{j.OrgID, j.IntegrationID, *j.ExternalKey}, true
}

// decide decides a create on what was loaded, in the order of its rules:
// the job of its externalKey is the answer (refused when the key is used in
// another location), a key stored before is a retry of an answered
// request, the location must be open for writes. err is a fault, not a
// refusal.
func (l createLoad) decide(r *createReq) (refused, err error) {
	j := r.job
	if k, ok := externalKeyOf(j); ok {
		if found, ok := l.existing[k]; ok {
			if found.LocationID != j.LocationID && j.LocationID != "" {
				var v workshop.Validation
				v.AddCode("externalKey", "taken", "externalKey %s is already used by a job of another location.", *j.ExternalKey)
				return v.Err(), nil
			}
			r.result = JobCreate{Job: found}
			return l.keyTaken(r), nil
		}
	}
	if refused := l.keyTaken(r); refused != nil {
		return refused, nil
	}
	loc, found := l.locs[j.LocationID]
	if refused := writable(Visibility{OrgID: j.OrgID}, j.LocationID, loc, found); refused != nil {
		return refused, nil
	}
	zone, err := workshop.LoadZone(loc.Timezone)
	if err != nil {
		return nil, err
	}
	j, r.year = workshop.Opened(j, zone, r.stampArrival)
	if err := workshop.CheckJob(j); err != nil {
		return err, nil
	}
	j.Steps = slices.Clone(j.Steps) // the request's stay as sent: a group may be decided again
	for i, st := range j.Steps {
		var item *workshop.CatalogItem
		if st.ServiceCode != nil {
			if it, ok := l.catalog[[2]string{j.LocationID, *st.ServiceCode}]; ok {
				item = &it
			}
		}
		if st, err = workshop.CompleteStep(st, item); err != nil {
			return err, nil
		}
		st.JobID, st.OrgID, st.LocationID = j.ID, j.OrgID, j.LocationID
		j.Steps[i] = st
	}
	r.result = JobCreate{Job: j, Created: true}
	return nil, nil
}

// keyTaken refuses a create under an Idempotency-Key already stored.
func (l createLoad) keyTaken(r *createReq) error {
	if r.key != nil && l.keys[[2]string{r.key.OrgID, r.key.Key}] {
		return errKeyTaken()
	}
	return nil
}

// insertJobs inserts new jobs with their first history entries and
// job.created events. Jobs without a number take their location's next
// numbers of the year; a number someone took explicitly is skipped, and an
// explicit number that is taken refuses its create.
func insertJobs(ctx context.Context, c conn, reqs []*createReq) error {
	pending := reqs
	for len(pending) > 0 {
		if err := numberJobs(ctx, c, pending); err != nil {
			return err
		}
		inserted, err := insertNumbered(ctx, c, pending)
		if err != nil {
			return err
		}
		var again []*createReq
		for _, r := range pending {
			switch {
			case inserted[r.result.Job.ID]:
			case r.job.JobNumber != "":
				r.refused = jobNumberTaken(r.job.JobNumber)
			default:
				again = append(again, r)
			}
		}
		pending = again
	}
	var written []*createReq
	for _, r := range reqs {
		if r.refused == nil {
			written = append(written, r)
		}
	}
	if len(written) == 0 {
		return nil
	}
	statuses, events := make([]any, 0, len(written)*statusWidth), make([]any, 0, len(written)*eventWidth)
	for _, r := range written {
		j := r.result.Job
		statuses = statusArgs(statuses, j)
		var err error
		if events, err = eventArgs(events, j.OrgID, j.LocationID, workshop.EventJobCreated, j.CreatedAt, jobRow(j)); err != nil {
			return err
		}
	}
	if _, err := c.exec(ctx, statusInsert+valueRows(len(written), statusWidth), statuses...); err != nil {
		return err
	}
	if _, err := c.exec(ctx, eventInsert+valueRows(len(written), eventWidth), events...); err != nil {
		return err
	}
	c.ev.n += len(written)
	return insertFirstSteps(ctx, c, written)
}

// insertFirstSteps inserts the steps of new jobs (the application creates
// a job with its steps) with their step.created events, and has each such
// job's status follow its steps, as CreateStep does.
func insertFirstSteps(ctx context.Context, c conn, reqs []*createReq) error {
	for _, r := range reqs {
		j := &r.result.Job
		if len(j.Steps) == 0 {
			continue
		}
		args, events := make([]any, 0, len(j.Steps)*stepWidth), make([]any, 0, len(j.Steps)*eventWidth)
		for _, st := range j.Steps {
			args = stepArgs(args, st)
			var err error
			if events, err = eventArgs(events, st.OrgID, st.LocationID, workshop.EventStepCreated, st.CreatedAt, stepRow(st)); err != nil {
				return err
			}
		}
		if _, err := c.exec(ctx, stepInsert+valueRows(len(j.Steps), stepWidth), args...); err != nil {
			return err
		}
		if _, err := c.exec(ctx, eventInsert+valueRows(len(j.Steps), eventWidth), events...); err != nil {
			return err
		}
		c.ev.n += len(j.Steps)
		if err := rederive(ctx, c, j, j.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}

// insertNumbered inserts jobs, skipping those whose number is taken, and
// tells which it inserted.
func insertNumbered(ctx context.Context, c conn, reqs []*createReq) (map[string]bool, error) {
	args := make([]any, 0, len(reqs)*jobWidth)
	for _, r := range reqs {
		args = jobArgs(args, r.result.Job)
	}
	rows, err := c.query(ctx, jobInsert+valueRows(len(reqs), jobWidth)+
		` ON CONFLICT (location_id, job_number) DO NOTHING RETURNING id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	inserted := make(map[string]bool, len(reqs))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		inserted[id] = true
	}
	return inserted, rows.Err()
}

// numberJobs gives each job without an explicit number the next number of
// its location's year, moving each counter once, in the order of
// (location, year) so that the groups of several processes lock the
// counters of PostgreSQL in one order. The counter moves in the
// transaction: a rolled-back create leaves no gap.
func numberJobs(ctx context.Context, c conn, reqs []*createReq) error {
	type counter struct {
		location string
		year     int
	}
	byCounter := map[counter][]*createReq{}
	for _, r := range reqs {
		if r.job.JobNumber == "" {
			k := counter{r.job.LocationID, r.year}
			byCounter[k] = append(byCounter[k], r)
		}
	}
	keys := make([]counter, 0, len(byCounter))
	for k := range byCounter {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b counter) int {
		return cmp.Or(strings.Compare(a.location, b.location), cmp.Compare(a.year, b.year))
	})
	for _, k := range keys {
		numbered := byCounter[k]
		var first int
		if err := c.queryRow(ctx, `INSERT INTO job_number_counters (location_id, year, next_seq) VALUES (?, ?, ?)
			ON CONFLICT (location_id, year) DO UPDATE SET next_seq = job_number_counters.next_seq + ?
			RETURNING next_seq - ?`, k.location, k.year, len(numbered)+1, len(numbered), len(numbered)).Scan(&first); err != nil {
			return err
		}
		for i, r := range numbered {
			r.result.Job.JobNumber = workshop.FormatJobNumber(k.year, first+i)
		}
	}
	return nil
}

// storeKeys stores the Idempotency-Keys of decided creates with their
// responses. A key another request stored meanwhile fails the write.
func storeKeys(ctx context.Context, c conn, reqs []*createReq) error {
	now := c.s.now()
	var args []any
	for _, r := range reqs {
		if r.key != nil && r.refused == nil {
			var err error
			if args, err = keyArgs(args, r.key, r.result, now); err != nil {
				return err
			}
		}
	}
	if len(args) == 0 {
		return nil
	}
	want := len(args) / claimWidth
	res, err := c.exec(ctx, claimInsert+valueRows(want, claimWidth)+claimOnConflict, append(args, claimCutoff(now))...)
	if err != nil {
		return err
	}
	if got, err := res.RowsAffected(); err != nil || got != int64(want) {
		return errKeyTaken()
	}
	return nil
}

// jobsOfExternalKeys reads the jobs of externalKeys, with their steps.
func jobsOfExternalKeys(ctx context.Context, c conn, keys map[[3]string]bool) (map[[3]string]workshop.Job, error) {
	found := map[[3]string]workshop.Job{}
	if len(keys) == 0 {
		return found, nil
	}
	args := make([]any, 0, 3*len(keys))
	for k := range keys {
		args = append(args, k[0], k[1], k[2])
	}
	rows, err := c.query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE (org_id, integration_id, external_key) IN (VALUES `+
		valueRows(len(keys), 3)+`)`, args...)
	if err != nil {
		return nil, err
	}
	jobs, err := collect(rows, scanJob)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.Steps, err = jobSteps(ctx, c, j.ID); err != nil {
			return nil, err
		}
		k, _ := externalKeyOf(j)
		found[k] = j
	}
	return found, nil
}

// storedKeys tells which of keys are stored and within retention.
func storedKeys(ctx context.Context, c conn, keys map[[2]string]bool) (map[[2]string]bool, error) {
	stored := map[[2]string]bool{}
	if len(keys) == 0 {
		return stored, nil
	}
	args := make([]any, 0, 2*len(keys))
	for k := range keys {
		args = append(args, k[0], k[1])
	}
	rows, err := c.query(ctx, `SELECT org_id, idem_key FROM idempotency_keys WHERE (org_id, idem_key) IN (VALUES `+
		valueRows(len(keys), 2)+`) AND created_at >= ?`, append(args, claimCutoff(c.s.now()))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			return nil, err
		}
		stored[k] = true
	}
	return stored, rows.Err()
}
