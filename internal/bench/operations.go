package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	for _, b := range []struct {
		name, open string
		n          int
	}{{"board", "2,000", 2000}, {"board_100k", "100,000", 100000}} {
		scenarios[b.name] = scenario{
			description: "GET /v1/scheduler/board of a location with " + b.open + " open jobs promised from 30 days back to 30 days ahead " +
				"(half of them late) and 40 bays (20 occupied), open loop at 200 req/s",
			prepare: func(ctx context.Context, e *env) (loadgen.Request, error) { return e.board(ctx, b.n) },
			rate:    200,
		}
	}
	scenarios["job_detail"] = scenario{
		description: "GET /v1/scheduler/jobs/{id}/detail of a job with 10 steps (plan, projection, history) vs the control, closed loop",
		prepare: func(ctx context.Context, e *env) (loadgen.Request, error) {
			jobs, err := e.seedJobs(ctx, 1, 10)
			if err != nil {
				return nil, err
			}
			return e.get("/v1/scheduler/jobs/"+jobs[0].job.ID+"/detail", e.locKey), nil
		},
	}
}

// board seeds open jobs with a step each, promised over 60 days around now
// (half of them late: the board's cost must not grow with them), and 40
// bays, starts the steps of 20 of them in 20 bays, and reads the board.
func (e *env) board(ctx context.Context, open int) (loadgen.Request, error) {
	now := e.clock()
	jobs, err := e.seedJobsWith(ctx, open, 1, seedOptions{promise: func(i int) *workshop.OffsetTime {
		return &workshop.OffsetTime{Time: now.Add(time.Duration(i%60-30) * 24 * time.Hour)}
	}})
	if err != nil {
		return nil, err
	}
	v := store.Visibility{OrgID: e.orgID}
	for i := range 40 {
		bay, err := e.op.CreateBay(ctx, e.locID, fmt.Sprintf("Bay %d", i+1), []string{"lift"}, nil)
		if err != nil {
			return nil, err
		}
		if i >= 20 {
			continue
		}
		st := jobs[i].steps[0]
		status, bayID := workshop.StepInProgress, &bay.ID
		if _, err := e.store.PatchStep(ctx, v, st.JobID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, BayID: &bayID, Status: &status},
			workshop.MicrosOf(e.clock())); err != nil {
			return nil, err
		}
	}
	return e.get("/v1/scheduler/board", e.locKey), nil
}
