package planning

import (
	"context"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Re-plans move only what must move (contract section 8). The anchor is
// the last plan computed to answer a reader (GET /v1/scheduler/plan for any
// date, MCP get_plan, the dispatch page): those call Anchor with the plan
// they answer with. Every plan, whoever asks, is computed
// from the newest stored anchor computed before its own version and
// minute (the store keeps the one before too), so two processes computing
// the plan of one version and minute start from the same anchor and give
// the same plan, even after one of them stored that plan as the next
// anchor. A step written to since the anchor was computed is left out of
// it: any write to a step frees it.

// Anchor stores p as the location's anchor; a plan already stored is not
// stored again (answering again from it changes nothing).
func (s *Service) Anchor(ctx context.Context, p *Plan) error {
	if p.anchored.Swap(true) {
		return nil
	}
	a := workshop.AnchorOf(p.Input, p.Dispatch)
	stored := store.PlanAnchor{Version: p.Version, Minute: p.Minute, Start: a.Start,
		Steps: make([]store.PlanAnchorStep, 0, len(a.Steps))}
	for _, st := range a.Steps {
		stored.Steps = append(stored.Steps, store.PlanAnchorStep{StepID: st.StepID, TechIDs: st.TechIDs, BayID: st.BayID,
			Start: st.Start, UpdatedAt: p.stepVersions[st.StepID]})
	}
	err := s.store.SavePlanAnchor(ctx, p.LocationID, stored)
	if err != nil {
		p.anchored.Store(false) // another reader tries again
	}
	return err
}

// anchorFor is the anchor p is computed from: the newest stored before
// p's version and minute, without the steps that are no longer pending or
// were written to since.
func (s *Service) anchorFor(ctx context.Context, p *Plan) (*workshop.DispatchAnchor, error) {
	current, previous, err := s.store.PlanAnchors(ctx, p.LocationID)
	if err != nil {
		return nil, err
	}
	var a *store.PlanAnchor
	for _, c := range []*store.PlanAnchor{current, previous} {
		if c != nil && c.Before(p.Version, p.Minute) {
			a = c
			break
		}
	}
	if a == nil {
		return nil, nil
	}
	pending := map[string]bool{}
	for _, j := range p.Input.Jobs {
		for _, st := range j.Steps {
			pending[st.ID] = st.Status == workshop.StepPending
		}
	}
	out := &workshop.DispatchAnchor{Start: a.Start}
	for _, st := range a.Steps {
		if v, ok := p.stepVersions[st.StepID]; ok && v == st.UpdatedAt && pending[st.StepID] {
			out.Steps = append(out.Steps, workshop.AnchorStep{StepID: st.StepID, TechIDs: st.TechIDs, BayID: st.BayID, Start: st.Start})
		}
	}
	return out, nil
}

// stepVersionsOf are the updatedAt of the steps of the plan's data.
func stepVersionsOf(d store.PlanData) map[string]workshop.Micros {
	out := map[string]workshop.Micros{}
	for _, j := range d.Jobs {
		for _, st := range j.Steps {
			out[st.ID] = st.UpdatedAt
		}
	}
	return out
}
