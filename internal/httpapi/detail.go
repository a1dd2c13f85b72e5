package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// DetailStore is what the job detail needs.
type DetailStore interface {
	JobDetail(ctx context.Context, v store.Visibility, id string) (store.JobDetailInput, error)
}

func (h *handlers) GetJobDetail(ctx context.Context, req oapi.GetJobDetailRequestObject) (oapi.GetJobDetailResponseObject, error) {
	d, err := jobDetail(ctx, h.store, h.plans, visibility(principalOf(ctx)), req.JobId, h.now())
	if err != nil {
		return nil, err
	}
	return appended{status: http.StatusOK, body: d, size: detailSize}, nil
}

// JobDetail is the job detail of GET /v1/scheduler/jobs/{id}/detail as the
// caller of visibility v sees it, with the job's status history it was
// made from: the same computation, plan and promise, for the
// application's job page.
func (s *Server) JobDetail(ctx context.Context, v store.Visibility, id string) (oapi.JobDetail, []store.StatusChange, error) {
	in, err := s.store.JobDetail(ctx, v, id)
	if err != nil {
		return oapi.JobDetail{}, nil, err
	}
	d, err := detailFrom(ctx, in, s.plans, s.now())
	return d, in.History, err
}

func jobDetail(ctx context.Context, st DetailStore, plans *planning.Service, v store.Visibility, id string, now time.Time) (oapi.JobDetail, error) {
	in, err := st.JobDetail(ctx, v, id)
	if err != nil {
		return oapi.JobDetail{}, err
	}
	return detailFrom(ctx, in, plans, now)
}

// detailFrom computes the detail of a job read for it.
func detailFrom(ctx context.Context, in store.JobDetailInput, plans *planning.Service, now time.Time) (oapi.JobDetail, error) {
	zone, err := workshop.LoadZone(in.Timezone)
	if err != nil {
		return oapi.JobDetail{}, err
	}
	var outlook *workshop.JobOutlook
	if openForPlan(in.Job) {
		plan, err := plans.Plan(ctx, in.Job.LocationID, "", now)
		if err != nil {
			return oapi.JobDetail{}, err
		}
		if o, ok := plan.Outlook(in.Job.ID); ok {
			outlook = &o
		}
	}
	return detailOf(in, zone, now, outlook), nil
}

// openForPlan tells whether a job is in its location's plan: not delivered
// or cancelled, with a step not completed.
func openForPlan(j workshop.Job) bool {
	if j.Terminal() {
		return false
	}
	for _, st := range j.Steps {
		if st.Status != workshop.StepCompleted {
			return true
		}
	}
	return false
}

// detailOf lays the job out with the domain's scheduler and presents the
// plan, the history and the promise. A delivered or cancelled job is seen
// as of when it ended, so its projection no longer moves. A job in its
// location's dispatch plan (outlook not nil) takes its promise from it, so
// the plan and the detail never disagree: the projected completion (kept
// from the job's own layout when a step is unplaced) and atRisk.
func detailOf(in store.JobDetailInput, zone *time.Location, now time.Time, outlook *workshop.JobOutlook) oapi.JobDetail {
	j := in.Job
	cal := workshop.NewCalendar(zone, in.Settings)
	now = now.Truncate(time.Microsecond) // times shown have microseconds at most
	if end := terminalAt(j); end != nil {
		now = end.Time()
	}
	start := j.CreatedAt.Time()
	if j.ArrivalTime != nil {
		start = j.ArrivalTime.Time
	}
	pin := workshop.PlanInput{Calendar: cal, Start: start, Now: now, BayBuffer: in.Settings.BayBuffer(), TechBusy: map[string][]workshop.Interval{}}
	for _, st := range j.Steps {
		pin.Steps = append(pin.Steps, workshop.PlanStepOf(st))
	}
	for tech, work := range in.TechWork {
		for _, w := range work {
			s := w.StartedAt.Time()
			pin.TechBusy[tech] = append(pin.TechBusy[tech], workshop.Interval{Start: s, End: cal.AddWork(s, time.Duration(w.Minutes)*time.Minute)})
		}
	}
	plan := workshop.PlanJob(pin)
	head := j
	head.Steps = nil // the detail presents its steps below, with their plan
	jo := jobOf(head)
	out := oapi.JobDetail{Id: jo.Id, LocationId: jo.LocationId, ExternalKey: jo.ExternalKey, JobNumber: jo.JobNumber,
		VehiclePlate: jo.VehiclePlate, VehicleMake: jo.VehicleMake, VehicleModel: jo.VehicleModel, PromiseTime: jo.PromiseTime,
		Priority: jo.Priority, Source: jo.Source, ArrivalTime: jo.ArrivalTime, Status: jo.Status, CreatedAt: jo.CreatedAt,
		UpdatedAt: jo.UpdatedAt, DeliveredAt: jo.DeliveredAt, CancelledAt: jo.CancelledAt, CancelReasonTags: jo.CancelReasonTags,
		PlannedStart: plan.PlannedStart, PlannedEnd: plan.PlannedEnd,
		ActualStart: nullableOf(plan.ActualStart), ActualEnd: nullableOf(plan.ActualEnd), Holds: holdsOf(in.History, zone), Delays: []oapi.Delay{}}
	finished := j.Terminal() || plan.ActualEnd != nil
	for i, st := range j.Steps {
		w := plan.Steps[i]
		so := stepOf(st)
		out.Steps = append(out.Steps, oapi.StepDetail{Id: so.Id, JobId: so.JobId, Label: so.Label, Phase: so.Phase,
			SchedulingMode: so.SchedulingMode, EstimatedDuration: so.EstimatedDuration, TechIds: so.TechIds, BayId: so.BayId,
			ServiceCode: so.ServiceCode, NotBefore: so.NotBefore,
			Status: so.Status, StartedAt: so.StartedAt, CompletedAt: so.CompletedAt, CreatedAt: so.CreatedAt, UpdatedAt: so.UpdatedAt,
			PlannedStart: w.PlannedStart, PlannedEnd: w.PlannedEnd, ActualStart: nullableOf(w.ActualStart), ActualEnd: nullableOf(w.ActualEnd),
			ProjectedEnd: w.ProjectedEnd})
		end := w.ProjectedEnd
		if w.ActualEnd != nil {
			end = *w.ActualEnd
		}
		if late := cal.WorkBetween(w.PlannedEnd, end); end.After(w.PlannedEnd) && late >= time.Minute {
			out.Delays = append(out.Delays, oapi.Delay{StepId: st.ID, PlannedEnd: w.PlannedEnd, End: end,
				Minutes: int(late / time.Minute), Ongoing: w.ActualEnd == nil})
		}
	}
	if out.Steps == nil {
		out.Steps = []oapi.StepDetail{}
	}
	projected := plan.ProjectedCompletion
	if outlook != nil && outlook.ProjectedCompletion != nil {
		projected = outlook.ProjectedCompletion.In(zone)
	}
	out.Promise.ProjectedCompletion = projected
	out.Promise.PromiseTime = jo.PromiseTime
	out.Promise.SlackMinutes = nullOf[int]()
	if j.PromiseTime != nil {
		p := workshop.PromiseOf(cal, j.PromiseTime.Time, projected, finished)
		out.Promise.AtRisk, out.Promise.SlackMinutes = p.AtRisk, nullable.NewNullableWithValue(p.SlackMinutes)
	}
	if outlook != nil {
		out.Promise.AtRisk = outlook.AtRisk
	}
	out.Verification.VerifiedBy = nullOf[string]()
	out.Verification.VerifiedAt = nullOf[oapi.NullableAuditTimestamp]()
	if at := verifiedAt(j); at != nil {
		out.Verification.Verified, out.Verification.VerifiedAt = true, nullable.NewNullableWithValue(*at)
	}
	return out
}

// terminalAt is when a delivered or cancelled job ended.
func terminalAt(j workshop.Job) *workshop.Micros {
	if j.DeliveredAt != nil {
		return j.DeliveredAt
	}
	return j.CancelledAt
}

// verifiedAt is when the last of a job's steps was completed, when all are
// (the work is verified complete); nil otherwise.
func verifiedAt(j workshop.Job) *workshop.Micros {
	var last *workshop.Micros
	for _, st := range j.Steps {
		if st.CompletedAt == nil {
			return nil
		}
		if last == nil || *st.CompletedAt > *last {
			last = st.CompletedAt
		}
	}
	return last
}

// holdsOf makes the waiting periods of a job's status history.
func holdsOf(history []store.StatusChange, zone *time.Location) []oapi.Hold {
	holds := []oapi.Hold{}
	for i, c := range history {
		if c.Status != workshop.JobWaiting {
			continue
		}
		h := oapi.Hold{Start: c.At.Time().In(zone), Reason: oapi.HoldReasonWaiting, End: nullOf[time.Time]()}
		if i+1 < len(history) {
			h.End = nullable.NewNullableWithValue(history[i+1].At.Time().In(zone))
		}
		holds = append(holds, h)
	}
	return holds
}
