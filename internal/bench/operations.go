package bench

import (
	"context"
	"fmt"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	scenarios["board"] = scenario{
		description: "GET /v1/scheduler/board of a location with 2,000 open jobs and 40 bays (20 occupied), open loop at 200 req/s",
		prepare:     func(ctx context.Context, e *env) (loadgen.Request, error) { return e.board(ctx) },
		rate:        200,
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

// board seeds 2,000 open jobs with a step each and 40 bays, starts the
// steps of 20 of them in 20 bays, and reads the board.
func (e *env) board(ctx context.Context) (loadgen.Request, error) {
	jobs, err := e.seedJobs(ctx, 2000, 1)
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
