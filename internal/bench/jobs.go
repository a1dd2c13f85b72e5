package bench

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	scenarios["create_job"] = scenario{
		description: "POST /v1/scheduler/jobs with an Idempotency-Key (job + assigned number + outbox event + idempotency record) vs the control, closed loop",
		prepare:     func(_ context.Context, e *env) (loadgen.Request, error) { return e.createJob(), nil },
	}
	scenarios["create_job_open"] = scenario{
		description: "POST /v1/scheduler/jobs with an Idempotency-Key, open loop at 3,000 req/s, latency from the scheduled send time",
		prepare:     func(_ context.Context, e *env) (loadgen.Request, error) { return e.createJob(), nil },
		rate:        3000,
	}
	scenarios["get_job"] = scenario{
		description: "GET /v1/scheduler/jobs/{id} of a job with 5 steps vs the control, closed loop",
		prepare: func(ctx context.Context, e *env) (loadgen.Request, error) {
			jobs, err := e.seedJobs(ctx, 1, 5)
			if err != nil {
				return nil, err
			}
			return e.get("/v1/scheduler/jobs/"+jobs[0].job.ID, e.locKey), nil
		},
	}
	scenarios["patch_step"] = scenario{
		description: "PATCH /v1/scheduler/jobs/{id}/steps/{id} pending -> in_progress (derived job status, outbox) vs the control, closed loop; every request moves a fresh step",
		prepare:     func(ctx context.Context, e *env) (loadgen.Request, error) { return e.patchSteps(ctx) },
		perRound:    true,
	}
	scenarios["list_jobs"] = scenario{
		description: "GET /v1/scheduler/jobs?limit=50 at random cursors in a location of 100,000 jobs, open loop at 500 req/s",
		prepare:     func(ctx context.Context, e *env) (loadgen.Request, error) { return e.listJobs(ctx, 100_000, 0) },
		rate:        500,
	}
	scenarios["list_jobs_by_status"] = scenario{
		description: "GET /v1/scheduler/jobs?status=arrived,in_progress&limit=50 at random cursors among 1,000 arrived jobs made after 100,000 booked ones, open loop at 500 req/s",
		prepare:     func(ctx context.Context, e *env) (loadgen.Request, error) { return e.listJobs(ctx, 1000, 100_000) },
		rate:        500,
	}
}

// createJob posts walk-ins with a fresh Idempotency-Key each. The key is
// numbered by the environment, not by i: i starts again at 0 in every round,
// and a key used in an earlier round would be answered by a replay, not a
// create.
func (e *env) createJob() loadgen.Request {
	return func(int64) (*http.Request, error) {
		i := e.keys.Add(1)
		body := fmt.Sprintf(`{"vehiclePlate":"B-BN %d","vehicleMake":"Volkswagen","vehicleModel":"Golf","priority":"normal","source":"walk_in"}`, i)
		r, err := http.NewRequest(http.MethodPost, e.base+"/v1/scheduler/jobs", bytes.NewBufferString(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "Bearer "+e.locKey)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%s-%d", e.run, i))
		return r, nil
	}
}

type seeded struct {
	job   workshop.Job
	steps []workshop.Step
}

// seedJobs makes n arrived jobs with steps pending steps each, through the
// store (setup is not measured), 64 at a time so that their writes share
// commits.
func (e *env) seedJobs(ctx context.Context, n, steps int) ([]seeded, error) {
	return e.seedJobsWith(ctx, n, steps, seedOptions{})
}

// seedOptions vary seedJobs's jobs.
type seedOptions struct {
	promise func(i int) *workshop.OffsetTime // the i-th job's promise time; none when nil
	booked  bool                             // not arrived
	vehicle func(i int, j *workshop.Job)     // sets the i-th job's vehicle; none when nil
	deliver func(i int) bool                 // delivers the i-th job once made
}

func (e *env) seedJobsWith(ctx context.Context, n, steps int, o seedOptions) ([]seeded, error) {
	const seeders = 64
	out := make([]seeded, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, seeders)
	v := store.Visibility{OrgID: e.orgID}
	for range seeders {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				now := workshop.MicrosOf(e.clock())
				j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: e.orgID, LocationID: e.locID, Priority: "normal",
					Source: "dms", CreatedAt: now, UpdatedAt: now}
				if o.promise != nil {
					j.PromiseTime = o.promise(i)
				}
				if o.vehicle != nil {
					o.vehicle(i, &j)
				}
				res, err := e.store.CreateJob(ctx, j, !o.booked)
				if err == nil && o.deliver != nil && o.deliver(i) {
					res.Job, err = e.store.DeliverJob(ctx, v, res.Job.ID, now)
				}
				if err != nil {
					errs <- err
					return
				}
				out[i].job = res.Job
				for k := range steps {
					st := workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: res.Job.ID, Label: "Step " + strconv.Itoa(k),
						Phase: k, SchedulingMode: "sequential", EstimatedDuration: 30, TechIDs: []string{}, Status: workshop.StepPending,
						CreatedAt: now, UpdatedAt: now}
					if st, err = e.store.CreateStep(ctx, v, st); err != nil {
						errs <- err
						return
					}
					out[i].steps = append(out[i].steps, st)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// patchSteps seeds fresh steps for one round and moves each to in_progress once.
func (e *env) patchSteps(ctx context.Context) (loadgen.Request, error) {
	jobs, err := e.seedJobs(ctx, e.stepPool, 1)
	if err != nil {
		return nil, err
	}
	return func(i int64) (*http.Request, error) {
		if int(i) >= len(jobs) {
			return nil, fmt.Errorf("the pool of %d fresh steps ran out: rerun with a larger --step-pool", len(jobs))
		}
		s := jobs[i]
		body := `{"updatedAt":"` + s.steps[0].UpdatedAt.String() + `","status":"in_progress"}`
		r, err := http.NewRequest(http.MethodPatch, e.base+"/v1/scheduler/jobs/"+s.job.ID+"/steps/"+s.steps[0].ID, bytes.NewBufferString(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "Bearer "+e.locKey)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}, nil
}

// listJobs seeds n arrived jobs and pages through them from random
// positions; with before > 0 it first seeds that many booked jobs and
// lists only the arrived ones, behind which they stand.
func (e *env) listJobs(ctx context.Context, n, before int) (loadgen.Request, error) {
	filter := ""
	if before > 0 {
		if _, err := e.seedJobsWith(ctx, before, 0, seedOptions{booked: true}); err != nil {
			return nil, err
		}
		filter = "&status=arrived,in_progress"
	}
	jobs, err := e.seedJobs(ctx, n, 0)
	if err != nil {
		return nil, err
	}
	cursors := make([]string, 1000)
	for i := range cursors {
		j := jobs[rand.IntN(len(jobs))].job
		cursors[i] = workshop.Cursor{CreatedAt: j.CreatedAt, ID: j.ID}.Encode()
	}
	return func(i int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodGet, e.base+"/v1/scheduler/jobs?limit=50"+filter+"&cursor="+url.QueryEscape(cursors[i%int64(len(cursors))]), nil)
		if err == nil {
			r.Header.Set("Authorization", "Bearer "+e.locKey)
		}
		return r, err
	}, nil
}
