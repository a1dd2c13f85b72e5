package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// asOneGroup writes reqs as one group of w, as if all had queued while the
// previous group was written (concurrent writes form groups only when they
// happen to meet), then writes alone those the group sent back. together
// tells which of them the group answered.
func asOneGroup[R grouped](ctx context.Context, w *groupWriter[R], reqs []R) (together []bool, errs []error) {
	together, errs = make([]bool, len(reqs)), make([]error, len(reqs))
	w.writeGroup(reqs)
	for i, r := range reqs {
		if err := <-r.base().done; !errors.Is(err, errWriteAgain) {
			together[i], errs[i] = true, err
			continue
		}
		errs[i] = w.writeAlone(ctx, r)
	}
	return together, errs
}

// CreateJobsAsOneGroup runs creates as CreateJob does, but as one group;
// keys[i] is the Idempotency-Key of jobs[i] (nil: none).
func (s *Store) CreateJobsAsOneGroup(ctx context.Context, jobs []workshop.Job, keys []*IdempotencyKey) (out []JobCreate, together []bool, errs []error) {
	group := make([]*createReq, len(jobs))
	for i, j := range jobs {
		group[i] = &createReq{queued: newQueued(ctx), job: j, key: keys[i]}
	}
	together, errs = asOneGroup(ctx, s.creates, group)
	out = make([]JobCreate, len(jobs))
	for i, r := range group {
		out[i] = r.result
	}
	return out, together, errs
}

// GroupPatch is one step patch of PatchStepsAsOneGroup.
type GroupPatch struct {
	V             Visibility
	JobID, StepID string
	Patch         StepPatch
	Now           workshop.Micros
}

// PatchStepsAsOneGroup runs patches as PatchStep does, but as one group.
func (s *Store) PatchStepsAsOneGroup(ctx context.Context, patches []GroupPatch) (out []workshop.Step, together []bool, errs []error) {
	group := make([]*patchReq, len(patches))
	for i, p := range patches {
		group[i] = &patchReq{queued: newQueued(ctx), v: p.V, jobID: p.JobID, stepID: p.StepID, patch: p.Patch, now: p.Now}
	}
	together, errs = asOneGroup(ctx, s.patches, group)
	out = make([]workshop.Step, len(patches))
	for i, r := range group {
		out[i] = r.step
	}
	return out, together, errs
}

// WriterPragma reads a pragma on the SQLite writer connection.
func (s *Store) WriterPragma(ctx context.Context, name string) (string, error) {
	var v string
	err := s.writer.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// ExplainSearch is the plan of SearchJobs's query, as one text.
func (s *Store) ExplainSearch(ctx context.Context, v Visibility, locationID, q string) (string, error) {
	open, closed, args := s.searchQueries(v, locationID, q)
	explain := "EXPLAIN QUERY PLAN "
	if s.dialect == postgresDialect {
		explain = "EXPLAIN "
	}
	var plan []string
	for _, query := range []string{open, closed} {
		p, err := s.explain(ctx, explain+query, append(slices.Clip(args), 50))
		if err != nil {
			return "", err
		}
		plan = append(plan, p...)
	}
	return strings.Join(plan, " "), nil
}

// explain is the rows of an EXPLAIN, each column's value as text.
func (s *Store) explain(ctx context.Context, query string, args []any) ([]string, error) {
	rows, err := s.read().query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		for _, d := range dest {
			plan = append(plan, fmt.Sprint(*d.(*any)))
		}
	}
	return plan, rows.Err()
}
