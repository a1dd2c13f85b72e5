package planning

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// StepChange is a change a preview makes to a pending step: what a PATCH
// of it would send (nil: unchanged).
type StepChange struct {
	StepID    string
	TechIDs   *[]string
	BayID     **string
	NotBefore **workshop.OffsetTime
}

// StatusChange is a technician status a preview assumes.
type StatusChange struct{ TechID, Status string }

// Preview is what changes would do, made before they are (contract
// section 8): the plan after them, the jobs whose outlook they change and
// the moves they cause among the other steps.
type Preview struct {
	Plan  *Plan
	Jobs  []PreviewJob
	Moves int
}

// PreviewJob is a job whose atRisk or lateMinutes the changes change.
type PreviewJob struct {
	JobID                       string
	AtRisk, WasAtRisk           bool
	LateMinutes, WasLateMinutes int
}

// Preview plans the location as it would be after changes and statuses,
// writing nothing and leaving the anchor alone. Each change is decided by
// the rules of the step PATCH (workshop.ChangeStep), its refusals named
// under its place in the list (changes[0].bayId); a step that is not
// pending, or not of the location's open jobs, is refused on stepId, a
// technician not of the location on technicians[i].techId.
func (s *Service) Preview(ctx context.Context, locationID string, changes []StepChange, statuses []StatusChange,
	now time.Time) (Preview, error) {
	current, err := s.Plan(ctx, locationID, now)
	if err != nil {
		return Preview{}, err
	}
	d, err := s.store.PlanData(ctx, locationID)
	if err != nil {
		return Preview{}, err
	}
	written, err := applyChanges(&d, locationID, changes, now)
	if err != nil {
		return Preview{}, err
	}
	for i, sc := range statuses {
		k := slices.IndexFunc(d.Techs, func(t workshop.Technician) bool { return t.ID == sc.TechID })
		if k < 0 {
			return Preview{}, workshop.Invalid(fmt.Sprintf("technicians[%d].techId", i), "%s is not a technician of the location.", sc.TechID)
		}
		d.Techs[k].Status = sc.Status
	}
	after, err := s.planOf(ctx, d, planKey{location: locationID, minute: startMinute(now)}, now, written)
	if err != nil {
		return Preview{}, err
	}
	return Preview{Plan: after, Jobs: outlookChanges(current.Dispatch, after.Dispatch),
		Moves: movesAmong(after, func(id string) bool { return !written[id] })}, nil
}

// applyChanges decides each change on d's steps and technicians and bays,
// and puts the changed steps into d; it returns the steps changed.
func applyChanges(d *store.PlanData, locationID string, changes []StepChange, now time.Time) (map[string]bool, error) {
	facts := workshop.StepFacts{Technicians: map[string]workshop.TechnicianLoad{}, Bays: map[string]workshop.BaySlot{},
		JobNumbers: map[string]string{}}
	for _, t := range d.Techs {
		facts.Technicians[t.ID] = workshop.TechnicianLoad{Name: t.Name, LocationID: locationID}
	}
	for _, b := range d.Bays {
		facts.Bays[b.ID] = workshop.BaySlot{Name: b.Name, LocationID: locationID, Status: b.Status}
	}
	written := map[string]bool{}
	for i, c := range changes {
		field := fmt.Sprintf("changes[%d].", i)
		ji, si := stepIn(d.Jobs, c.StepID)
		if ji < 0 || d.Jobs[ji].Steps[si].Status != workshop.StepPending {
			return nil, workshop.Invalid(field+"stepId", "%s is not a pending step of the location's open jobs.", c.StepID)
		}
		st := d.Jobs[ji].Steps[si]
		next, err := workshop.ChangeStep(d.Jobs[ji], st, workshop.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: c.TechIDs, BayID: c.BayID,
			NotBefore: c.NotBefore}, workshop.MicrosOf(now), facts)
		if err != nil {
			return nil, workshop.UnderField(err, field)
		}
		d.Jobs[ji].Steps = slices.Clone(d.Jobs[ji].Steps)
		d.Jobs[ji].Steps[si], written[c.StepID] = next, true
	}
	return written, nil
}

// stepIn finds a step among jobs' steps: the job's and the step's index,
// -1 when it is not there.
func stepIn(jobs []workshop.Job, stepID string) (int, int) {
	for ji, j := range jobs {
		if si := slices.IndexFunc(j.Steps, func(st workshop.Step) bool { return st.ID == stepID }); si >= 0 {
			return ji, si
		}
	}
	return -1, -1
}

// outlookChanges are the jobs whose atRisk or lateMinutes differ between
// two plans of one location, in the order of after.
func outlookChanges(before, after workshop.Dispatch) []PreviewJob {
	was := map[string]workshop.JobOutlook{}
	for _, o := range before.Jobs {
		was[o.JobID] = o
	}
	out := []PreviewJob{}
	for _, o := range after.Jobs {
		b := was[o.JobID]
		if b.AtRisk != o.AtRisk || b.LateMinutes != o.LateMinutes {
			out = append(out, PreviewJob{JobID: o.JobID, AtRisk: o.AtRisk, WasAtRisk: b.AtRisk, LateMinutes: o.LateMinutes,
				WasLateMinutes: b.LateMinutes})
		}
	}
	return out
}

// movesAmong counts the moves of p from its anchor (contract section 8)
// among the steps counted says yes to.
func movesAmong(p *Plan, counted func(stepID string) bool) int {
	a := p.Input.Anchor
	if a == nil {
		return 0
	}
	placed := map[string]workshop.PlannedStep{}
	for _, ps := range p.Dispatch.Steps {
		placed[ps.StepID] = ps
	}
	n := 0
	for _, as := range a.Steps {
		if counted(as.StepID) && workshop.Moved(as, placed[as.StepID]) {
			n++
		}
	}
	return n
}
