package dispatchgen

import (
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Moves counts what a re-plan moved from its anchor, as the contract
// counts moves (section 8): a pending step the anchor placed that the
// re-plan leaves unplaced, gives other technicians or another bay, or
// starts more than 15 minutes later than its announced start. Only the
// steps for which counted says yes are looked at ("the other steps"),
// and of those the ones the anchor started in its first working hour are
// counted apart.
type Moves struct {
	Steps, Moved            int
	FirstHour, MovedFirst   int
	WeightedLate, Unplaced  int // the re-plan's
	AnchorLate, AnchorUnpl  int // the anchor's
	StartedEarlier, Shifted int // of the steps not moved: how many start earlier, and later within the tolerance
	// Pushed are the moved steps that kept their technicians and bay: work
	// before them pushed them later (the minute passed carried it past a
	// break or a closing), where a new placement would change them.
	Pushed int
}

// Add sums two counts.
func (m Moves) Add(o Moves) Moves {
	return Moves{Steps: m.Steps + o.Steps, Moved: m.Moved + o.Moved, FirstHour: m.FirstHour + o.FirstHour,
		MovedFirst: m.MovedFirst + o.MovedFirst, WeightedLate: m.WeightedLate + o.WeightedLate, Unplaced: m.Unplaced + o.Unplaced,
		AnchorLate: m.AnchorLate + o.AnchorLate, AnchorUnpl: m.AnchorUnpl + o.AnchorUnpl,
		StartedEarlier: m.StartedEarlier + o.StartedEarlier, Shifted: m.Shifted + o.Shifted, Pushed: m.Pushed + o.Pushed}
}

// Share is the moved share of the steps looked at, 0..1.
func (m Moves) Share() float64 {
	if m.Steps == 0 {
		return 0
	}
	return float64(m.Moved) / float64(m.Steps)
}

// CountMoves counts the moves of replan from anchor (the plan first,
// computed from in and made an anchor with announced starts a), among
// the steps counted says yes to.
func CountMoves(cal workshop.Calendar, first workshop.Dispatch, a workshop.DispatchAnchor, replan workshop.Dispatch,
	counted func(stepID, jobID string) bool) Moves {
	m := Moves{WeightedLate: replan.Totals.WeightedLateMinutes, Unplaced: replan.Totals.UnplacedSteps,
		AnchorLate: first.Totals.WeightedLateMinutes, AnchorUnpl: first.Totals.UnplacedSteps}
	placed := map[string]workshop.PlannedStep{}
	for _, s := range replan.Steps {
		placed[s.StepID] = s
	}
	jobOf := map[string]string{}
	for _, s := range first.Steps {
		jobOf[s.StepID] = s.JobID
	}
	window := cal.AddWork(first.Start, workshop.KeptWindow)
	for _, s := range a.Steps {
		if !counted(s.StepID, jobOf[s.StepID]) {
			continue
		}
		now, ok := placed[s.StepID]
		moved := workshop.Moved(s, now)
		m.Steps++
		if moved {
			m.Moved++
			if ok && now.BayID == s.BayID && slices.Equal(now.TechIDs, s.TechIDs) {
				m.Pushed++
			}
		} else if now.Start.Before(s.Start) {
			m.StartedEarlier++
		} else if now.Start.After(s.Start) {
			m.Shifted++
		}
		if s.Start.Before(window) {
			m.FirstHour++
			if moved {
				m.MovedFirst++
			}
		}
	}
	return m
}

// Replan plans in, makes that plan the anchor, applies change to a copy
// of in a delay later (nil: nothing changes), and re-plans from the
// anchor: the anchor's plan, the anchor and the re-plan, as a reader of
// the service would see them.
func Replan(in workshop.DispatchInput, delay time.Duration, change func(*workshop.DispatchInput)) (first workshop.Dispatch,
	a workshop.DispatchAnchor, replan workshop.Dispatch) {
	first = workshop.PlanDispatch(in)
	a = workshop.AnchorOf(in, first, nil)
	later := in
	later.Now = in.Now.Add(delay)
	later.Techs = slices.Clone(in.Techs)
	later.Bays = slices.Clone(in.Bays)
	later.Jobs = slices.Clone(in.Jobs)
	if change != nil {
		change(&later)
	}
	a.Unchanged = change == nil
	later.Anchor = &a
	return first, a, workshop.PlanDispatch(later)
}
