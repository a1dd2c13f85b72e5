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
// So concurrent creates are written in groups: a create waits in the
// store's createQueue, and the creates that queued while the previous
// group was being written are written together by a handful of multi-row
// statements in one atomic write. Each counter moves once per group, and
// on PostgreSQL its lock is held for one transaction per group.
//
// A group does only the plain case. A create runs alone, by CreateJob's
// one-create path that has every rule and message, when it has a job
// number of its own, when its location is not the caller's or is mid-close, when its externalKey or
// Idempotency-Key is another's in the group, and, for every create of the
// group, when any statement of the group fails: a number taken explicitly,
// an externalKey or Idempotency-Key that another process wrote meanwhile.
// The group's write is then undone as a whole and leaves nothing behind.

// maxCreateGroup bounds a group. Each group size has statements of its own
// text, prepared once per connection: the bound bounds them too.
const maxCreateGroup = 64

type createReq struct {
	queued
	job          workshop.Job
	year         int // of the job's number
	stampArrival bool
	key          *IdempotencyKey
}

func newCreateQueue(s *Store) *groupQueue[*createReq] {
	return newGroupQueue(maxCreateGroup, func(group []*createReq) { writeQueued(s, group, writeGroup) })
}

// createInGroup writes j in the create queue's next group and returns it as
// stored; errRunAlone when the caller is to write it alone.
func (s *Store) createInGroup(ctx context.Context, j workshop.Job, stampArrival bool, key *IdempotencyKey) (workshop.Job, error) {
	if j.JobNumber != "" {
		return j, errRunAlone
	}
	r := newCreateReq(ctx, j, stampArrival, key)
	if err := s.creates.send(ctx, r); err != nil {
		return j, err
	}
	return r.outcome()
}

// outcome waits for the create's group: the job as stored, or the error
// (errRunAlone included).
func (r *createReq) outcome() (workshop.Job, error) {
	if err := <-r.err; err != nil {
		return r.job, err
	}
	return r.job, nil
}

func newCreateReq(ctx context.Context, j workshop.Job, stampArrival bool, key *IdempotencyKey) *createReq {
	return &createReq{queued: newQueued(ctx), job: j, stampArrival: stampArrival, key: key}
}

// writeGroup writes the creates of a group that are not to run alone,
// each as CreateJob's one-create path would.
func writeGroup(c conn, group []*createReq) error {
	ctx := context.Background()
	if err := settleGroup(ctx, c, group); err != nil {
		return err
	}
	together := make([]*createReq, 0, len(group))
	for _, r := range group {
		if !r.alone {
			together = append(together, r)
		}
	}
	if len(together) == 0 {
		return nil
	}
	if err := numberGroup(ctx, c, together); err != nil {
		return err
	}
	n := len(together)
	jobs, statuses := make([]any, 0, n*jobWidth), make([]any, 0, n*statusWidth)
	events, claims := make([]any, 0, n*eventWidth), []any{}
	now := c.s.now()
	for _, r := range together {
		j := r.job
		jobs, statuses = jobArgs(jobs, j), statusArgs(statuses, j)
		var err error
		if events, err = eventArgs(events, j.OrgID, j.LocationID, workshop.EventJobCreated, j.CreatedAt, jobRow(j)); err != nil {
			return err
		}
		if r.key != nil {
			if claims, err = keyArgs(claims, r.key, JobCreate{Job: j, Created: true}, now); err != nil {
				return err
			}
		}
	}
	for _, ins := range []struct {
		head  string
		width int
		args  []any
	}{{jobInsert, jobWidth, jobs}, {statusInsert, statusWidth, statuses}, {eventInsert, eventWidth, events}} {
		if _, err := c.exec(ctx, ins.head+valueRows(len(ins.args)/ins.width, ins.width), ins.args...); err != nil {
			return err
		}
	}
	c.ev.n += n
	if len(claims) == 0 {
		return nil
	}
	want := len(claims) / claimWidth
	res, err := c.exec(ctx, claimInsert+valueRows(want, claimWidth)+claimOnConflict, append(claims, claimCutoff(now))...)
	if err != nil {
		return err
	}
	if got, err := res.RowsAffected(); err != nil || got != int64(want) {
		return errRunAlone // a key is another request's: the one-create path tells which
	}
	return nil
}

// settleGroup reads the group's locations (share-locked on PostgreSQL, as
// openLocation does) and settles each create in its location, or marks it
// to run alone.
func settleGroup(ctx context.Context, c conn, group []*createReq) error {
	ids := make([]string, 0, len(group))
	for _, r := range group {
		ids = append(ids, r.job.LocationID)
	}
	locs, err := locationsForWrite(ctx, c, ids)
	if err != nil {
		return err
	}
	externalKeys := map[[3]string]bool{}
	// Keys stored before (a retry's: it runs alone, to be undone and
	// replayed) and keys taken by an earlier create of the group.
	takenKeys, err := storedClaims(ctx, c, group)
	if err != nil {
		return err
	}
	for _, r := range group {
		l, found := locs[r.job.LocationID]
		if writable(Visibility{OrgID: r.job.OrgID}, r.job.LocationID, l, found) != nil {
			r.alone = true // the one-create path answers with the error
			continue
		}
		if r.job.ExternalKey != nil {
			k := [3]string{r.job.OrgID, r.job.IntegrationID, *r.job.ExternalKey}
			r.alone = externalKeys[k] // the second answers with the first's job
			externalKeys[k] = true
		}
		if r.key != nil {
			k := [2]string{r.key.OrgID, r.key.Key}
			r.alone = r.alone || takenKeys[k]
			takenKeys[k] = true
		}
		if r.alone {
			continue
		}
		if r.job, r.year, err = settle(r.job, l.Timezone, r.stampArrival); err != nil {
			return err
		}
	}
	return nil
}

// storedClaims are the Idempotency-Keys of the group's creates that are
// stored and within retention. A create under one is a retry whose first
// request was answered (the API looks the key up only after creates, see
// httpapi's keyInWrite): left in the group, its key would fail the group's
// write and send every create of the group to run alone.
func storedClaims(ctx context.Context, c conn, group []*createReq) (map[[2]string]bool, error) {
	stored := map[[2]string]bool{}
	var args []any
	for _, r := range group {
		if r.key != nil {
			args = append(args, r.key.OrgID, r.key.Key)
		}
	}
	if len(args) == 0 {
		return stored, nil
	}
	rows, err := c.query(ctx, `SELECT org_id, idem_key FROM idempotency_keys WHERE (org_id, idem_key) IN (VALUES `+
		valueRows(len(args)/2, 2)+`) AND created_at >= ?`, append(args, claimCutoff(c.s.now()))...)
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

// numberGroup gives each create the next number of its location's year,
// moving each counter once, in the order of (location, year) so that
// groups of several processes lock the counters of PostgreSQL in one
// order. A number someone took explicitly makes the insert fail, and the
// creates run alone, skipping it.
func numberGroup(ctx context.Context, c conn, group []*createReq) error {
	type counter struct {
		location string
		year     int
	}
	byCounter := map[counter][]*createReq{}
	for _, r := range group {
		k := counter{r.job.LocationID, r.year}
		byCounter[k] = append(byCounter[k], r)
	}
	keys := make([]counter, 0, len(byCounter))
	for k := range byCounter {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b counter) int {
		return cmp.Or(strings.Compare(a.location, b.location), cmp.Compare(a.year, b.year))
	})
	for _, k := range keys {
		reqs := byCounter[k]
		var first int
		if err := c.queryRow(ctx, `INSERT INTO job_number_counters (location_id, year, next_seq) VALUES (?, ?, ?)
			ON CONFLICT (location_id, year) DO UPDATE SET next_seq = job_number_counters.next_seq + ?
			RETURNING next_seq - ?`, k.location, k.year, len(reqs)+1, len(reqs), len(reqs)).Scan(&first); err != nil {
			return err
		}
		for i, r := range reqs {
			r.job.JobNumber = workshop.FormatJobNumber(k.year, first+i)
		}
	}
	return nil
}
