package httpapi

import (
	"context"
	"errors"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// PlanStore is what planning reads and applying a plan writes.
type PlanStore interface {
	planning.Store
	AssignSteps(ctx context.Context, v store.Visibility, locationID string, version int64, as []store.StepAssignment,
		now workshop.Micros) ([]workshop.Step, error)
	CatalogItemsByCode(ctx context.Context, locationID string, codes []string) (map[string]workshop.CatalogItem, error)
}

func (h *handlers) GetPlan(ctx context.Context, req oapi.GetPlanRequestObject) (oapi.GetPlanResponseObject, error) {
	loc, err := h.locationParam(ctx, principalOf(ctx), deref(req.Params.LocationId), true)
	if err != nil {
		return nil, err
	}
	now := h.now()
	p, err := h.plans.Plan(ctx, loc, now)
	if err != nil {
		return nil, err
	}
	out := planOf(p, p.Dispatch.Steps, now)
	if req.Params.Date != nil { // one plan: a date lists the steps of its day
		day, err := p.Day(req.Params.Date.Format(time.DateOnly), now)
		if err != nil {
			return nil, err
		}
		out = planOf(p, p.Dispatch.StepsOn(day), now)
		out.Date = nullable.NewNullableWithValue(*req.Params.Date)
	}
	if err := h.plans.Anchor(ctx, p); err != nil { // the plan a reader saw, which later plans stay near
		return nil, err
	}
	return oapi.GetPlan200JSONResponse(out), nil
}

func (h *handlers) ApplyPlan(ctx context.Context, req oapi.ApplyPlanRequestObject) (oapi.ApplyPlanResponseObject, error) {
	p := principalOf(ctx)
	loc, err := h.bodyLocation(ctx, p, deref(req.Body.LocationId))
	if err != nil {
		return nil, err
	}
	var stepIDs []string
	if req.Body.StepIds != nil {
		stepIDs = *req.Body.StepIds
	}
	after, err := h.plans.Apply(ctx, visibility(p), loc, stepIDs, h.now)
	if err != nil {
		return nil, err
	}
	return oapi.ApplyPlan200JSONResponse(planOf(after, after.Dispatch.Steps, h.now())), nil
}

func (h *handlers) GetAvailability(ctx context.Context, req oapi.GetAvailabilityRequestObject) (oapi.GetAvailabilityResponseObject, error) {
	q := req.Params
	loc, err := h.locationParam(ctx, principalOf(ctx), deref(q.LocationId), true)
	if err != nil {
		return nil, err
	}
	steps, err := h.quoteSteps(ctx, loc, q.ServiceCodes)
	if err != nil {
		return nil, err
	}
	now := h.now()
	from := now
	if q.From != nil {
		from = *q.From
	}
	quote, err := h.plans.Quote(ctx, loc, now, from, steps)
	if err != nil {
		return nil, err
	}
	out := oapi.Availability{LocationId: loc, From: from.In(quote.Zone).Truncate(time.Microsecond),
		EarliestCompletion: nullableOf(quote.EarliestCompletion), Reason: nullOf[oapi.UnplacedReason](),
		Confidence: quote.Confidence, MarginMinutes: int(quote.Margin / time.Minute),
		Steps: make([]oapi.AvailabilityStep, 0, len(quote.Steps))}
	if quote.Unplaced != "" {
		out.Reason = nullable.NewNullableWithValue(oapi.UnplacedReason(quote.Unplaced))
	}
	for _, s := range quote.Steps {
		out.Steps = append(out.Steps, oapi.AvailabilityStep{ServiceCode: s.ServiceCode, TechIds: nonNilList(s.TechIDs),
			BayId: optional(s.BayID), PlannedStart: s.Start, PlannedEnd: s.End})
	}
	return oapi.GetAvailability200JSONResponse(out), nil
}

// quoteSteps are the services of a quote from the location's catalog; an
// unknown or inactive code is refused on serviceCodes.
func (h *handlers) quoteSteps(ctx context.Context, loc string, codes []string) ([]workshop.QuoteStep, error) {
	items, err := h.store.CatalogItemsByCode(ctx, loc, codes)
	if err != nil {
		return nil, err
	}
	return workshop.QuoteStepsOf(items, codes)
}

// bodyLocation is the location a write body names, resolved as every
// write's: implied by a location key, required of an organisation key and
// then one of its organisation's.
func (h *handlers) bodyLocation(ctx context.Context, p *workshop.Principal, sent string) (string, error) {
	loc, err := p.ResolveLocation(sent, true)
	if err != nil || p.LocationID != "" {
		return loc, err
	}
	if _, err := h.store.Location(ctx, p.OrgID, loc); err != nil {
		var we *workshop.Error
		if errors.As(err, &we) && we.Code == workshop.CodeNotFound {
			return "", workshop.Invalid("locationId", "Location %s is not a location of this organisation.", loc)
		}
		return "", err
	}
	return loc, nil
}

// planOf presents a plan with the planned steps listed: planned times in
// the location's zone, generatedAt an audit timestamp of now, date null.
func planOf(p *planning.Plan, steps []workshop.PlannedStep, now time.Time) oapi.Plan {
	d := p.Dispatch
	out := oapi.Plan{LocationId: p.LocationID, Date: nullOf[openapi_types.Date](), GeneratedAt: workshop.MicrosOf(now),
		Steps: make([]oapi.PlannedStep, 0, len(steps)), Unplaced: make([]oapi.UnplacedStep, 0, len(d.Unplaced)),
		Jobs: make([]oapi.PlanJob, 0, len(d.Jobs)),
		Totals: oapi.PlanTotals{LateJobs: d.Totals.LateJobs, WeightedLateMinutes: d.Totals.WeightedLateMinutes,
			PlacedSteps: d.Totals.PlacedSteps, UnplacedSteps: d.Totals.UnplacedSteps}}
	for _, s := range steps {
		out.Steps = append(out.Steps, oapi.PlannedStep{StepId: s.StepID, JobId: s.JobID, TechIds: nonNilList(s.TechIDs),
			BayId: optional(s.BayID), PlannedStart: s.Start.In(p.Zone), PlannedEnd: s.End.In(p.Zone), Pinned: s.Pinned,
			NotBefore: nullableOf(inZone(s.NotBefore, p.Zone))})
	}
	for _, u := range d.Unplaced {
		us := oapi.UnplacedStep{StepId: u.StepID, JobId: u.JobID, Reason: oapi.UnplacedReason(u.Reason)}
		if u.BlockedBy != "" {
			us.BlockedBy = &u.BlockedBy
		}
		out.Unplaced = append(out.Unplaced, us)
	}
	for _, j := range d.Jobs {
		out.Jobs = append(out.Jobs, oapi.PlanJob{JobId: j.JobID, PromiseTime: nullableOf(j.PromiseTime),
			ProjectedCompletion: nullableOf(inZone(j.ProjectedCompletion, p.Zone)), AtRisk: j.AtRisk, LateMinutes: j.LateMinutes})
	}
	return out
}

func inZone(t *time.Time, zone *time.Location) *time.Time {
	if t == nil {
		return nil
	}
	z := t.In(zone)
	return &z
}

func (h *handlers) PreviewPlan(ctx context.Context, req oapi.PreviewPlanRequestObject) (oapi.PreviewPlanResponseObject, error) {
	p := principalOf(ctx)
	b := req.Body
	loc, err := h.bodyLocation(ctx, p, deref(b.LocationId))
	if err != nil {
		return nil, err
	}
	changes := make([]planning.StepChange, len(b.Changes))
	for i, c := range b.Changes {
		changes[i] = planning.StepChange{StepID: c.StepId, TechIDs: c.TechIds, BayID: optionalNullable(c.BayId), NotBefore: optionalOffset(c.NotBefore)}
	}
	var statuses []planning.StatusChange
	if b.Technicians != nil {
		for _, t := range *b.Technicians {
			statuses = append(statuses, planning.StatusChange{TechID: t.TechId, Status: string(t.Status)})
		}
	}
	now := h.now()
	pv, err := h.plans.Preview(ctx, loc, changes, statuses, now)
	if err != nil {
		return nil, err
	}
	out := oapi.PreviewPlan200JSONResponse{Plan: planOf(pv.Plan, pv.Plan.Dispatch.Steps, now),
		Effects: oapi.PlanEffects{Moves: pv.Moves, Jobs: make([]oapi.PlanEffectJob, 0, len(pv.Jobs))}}
	for _, j := range pv.Jobs {
		out.Effects.Jobs = append(out.Effects.Jobs, oapi.PlanEffectJob{JobId: j.JobID, AtRisk: j.AtRisk, LateMinutes: j.LateMinutes,
			WasAtRisk: j.WasAtRisk, WasLateMinutes: j.WasLateMinutes})
	}
	return out, nil
}
