package httpapi

import (
	"context"
	"net/http"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func (h *handlers) GetJobDetail(ctx context.Context, req oapi.GetJobDetailRequestObject) (oapi.GetJobDetailResponseObject, error) {
	d, err := h.plans.JobDetail(ctx, visibility(principalOf(ctx)), req.JobId, h.now())
	if err != nil {
		return nil, err
	}
	return appended{status: http.StatusOK, body: detailOf(d), size: detailSize}, nil
}

// detailOf presents the domain's job detail (workshop.DetailOf, from the
// location's plan).
func detailOf(d workshop.JobDetail) oapi.JobDetail {
	head := d.Job
	head.Steps = nil // the detail presents its steps below, with their plan
	jo := jobOf(head)
	out := oapi.JobDetail{Id: jo.Id, LocationId: jo.LocationId, ExternalKey: jo.ExternalKey, JobNumber: jo.JobNumber,
		VehiclePlate: jo.VehiclePlate, VehicleMake: jo.VehicleMake, VehicleModel: jo.VehicleModel, PromiseTime: jo.PromiseTime,
		Priority: jo.Priority, Source: jo.Source, ArrivalTime: jo.ArrivalTime, Status: jo.Status, CreatedAt: jo.CreatedAt,
		UpdatedAt: jo.UpdatedAt, DeliveredAt: jo.DeliveredAt, CancelledAt: jo.CancelledAt, CancelReasonTags: jo.CancelReasonTags,
		ExpectedArrival: jo.ExpectedArrival, CustomerName: jo.CustomerName, CustomerPhone: jo.CustomerPhone, CustomerEmail: jo.CustomerEmail,
		PlannedStart: nullableOf(d.PlannedStart), PlannedEnd: nullableOf(d.PlannedEnd),
		ActualStart: nullableOf(d.ActualStart), ActualEnd: nullableOf(d.ActualEnd),
		Steps: make([]oapi.StepDetail, 0, len(d.Steps)), Holds: make([]oapi.Hold, 0, len(d.Holds)), Delays: make([]oapi.Delay, 0, len(d.Delays))}
	for i, st := range d.Job.Steps {
		w, so := d.Steps[i], stepOf(st)
		out.Steps = append(out.Steps, oapi.StepDetail{Id: so.Id, JobId: so.JobId, Label: so.Label, Phase: so.Phase,
			SchedulingMode: so.SchedulingMode, EstimatedDuration: so.EstimatedDuration, TechIds: so.TechIds, BayId: so.BayId,
			ServiceCode: so.ServiceCode, NotBefore: so.NotBefore,
			Status: so.Status, StartedAt: so.StartedAt, CompletedAt: so.CompletedAt, CreatedAt: so.CreatedAt, UpdatedAt: so.UpdatedAt,
			PlannedStart: nullableOf(w.PlannedStart), PlannedEnd: nullableOf(w.PlannedEnd), ActualStart: nullableOf(w.ActualStart),
			ActualEnd: nullableOf(w.ActualEnd), ProjectedEnd: nullableOf(w.ProjectedEnd)})
	}
	for _, h := range d.Holds {
		out.Holds = append(out.Holds, oapi.Hold{Start: h.Start, Reason: oapi.HoldReasonWaiting, End: nullableOf(h.End)})
	}
	for _, dl := range d.Delays {
		out.Delays = append(out.Delays, oapi.Delay{StepId: dl.StepID, PlannedEnd: dl.PlannedEnd, End: dl.End, Minutes: dl.Minutes, Ongoing: dl.Ongoing})
	}
	out.Promise.PromiseTime = jo.PromiseTime // as sent, like the job's
	out.Promise.ProjectedCompletion = nullableOf(d.Promise.ProjectedCompletion)
	out.Promise.AtRisk = d.Promise.AtRisk
	out.Promise.SlackMinutes = nullableOf(d.Promise.SlackMinutes)
	out.Verification.VerifiedBy = nullOf[string]()
	out.Verification.VerifiedAt = nullOf[oapi.NullableAuditTimestamp]()
	if d.VerifiedAt != nil {
		out.Verification.Verified, out.Verification.VerifiedAt = true, nullable.NewNullableWithValue(*d.VerifiedAt)
	}
	return out
}
