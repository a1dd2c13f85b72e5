package webapp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// What a move would do, before it is made (contract section 8, the
// preview): the move form shows it as its fields change, dispatch.js
// beside a dragged bar once the pointer rests, and a move that makes a
// job later asks first. The plan is the planning service's own preview,
// the operation the API's POST /v1/scheduler/plan/preview calls.

// moveEffects is what a preview found: the jobs whose outlook changes,
// and how many other steps move.
type moveEffects struct {
	Jobs  []effectJob
	Moves int
}

type effectJob struct {
	JobID             string
	AtRisk, WasAtRisk bool
	Late, WasLate     int // minutes
}

// previewOf is what the change p of step st would do: the planning
// service's preview of it (the API's POST /v1/scheduler/plan/preview).
func (a *App) previewOf(ctx context.Context, d *desk, st workshop.Step, p store.StepPatch) (moveEffects, error) {
	c := planning.StepChange{StepID: st.ID, TechIDs: p.TechIDs, BayID: p.BayID, NotBefore: p.NotBefore}
	pv, err := a.plans.Preview(ctx, d.loc.ID, []planning.StepChange{c}, nil, a.now())
	if err != nil {
		return moveEffects{}, err
	}
	e := moveEffects{Moves: pv.Moves}
	for _, j := range pv.Jobs {
		e.Jobs = append(e.Jobs, effectJob{JobID: j.JobID, AtRisk: j.AtRisk, WasAtRisk: j.WasAtRisk, Late: j.LateMinutes, WasLate: j.WasLateMinutes})
	}
	return e, nil
}

// later is whether the effects make a job later or put it at risk.
func (e moveEffects) later() bool {
	return slices.ContainsFunc(e.Jobs, func(j effectJob) bool { return j.Late > j.WasLate || j.AtRisk && !j.WasAtRisk })
}

// words say the effects as staff read them: "RO-2026-0003 becomes 0:46
// late; 2 other steps move."
func (e moveEffects) words(td timelineData) string {
	var out []string
	for _, j := range e.Jobs {
		n := td.jobs[j.JobID].JobNumber
		switch {
		case j.AtRisk && j.Late == 0 && j.WasLate == 0 && !j.WasAtRisk:
			out = append(out, n+" can no longer be finished in the plan")
		case j.Late > 0 && j.WasLate == 0:
			out = append(out, n+" becomes "+durationText(j.Late)+" late")
		case j.Late > j.WasLate:
			out = append(out, n+" becomes "+durationText(j.Late)+" late instead of "+durationText(j.WasLate))
		case j.Late == 0 && !j.AtRisk:
			out = append(out, n+" is on time again")
		case j.Late < j.WasLate:
			out = append(out, n+" is "+durationText(j.Late)+" late instead of "+durationText(j.WasLate))
		}
	}
	switch e.Moves {
	case 0:
		out = append(out, "no other step moves")
	case 1:
		out = append(out, "1 other step moves")
	default:
		out = append(out, strconv.Itoa(e.Moves)+" other steps move")
	}
	if len(out) == 1 && e.Moves == 0 {
		return "No job becomes later, and no other step moves."
	}
	s := strings.Join(out, "; ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

// lateningOf says which jobs the move would make later ("" none), to ask
// before it is made.
func (a *App) lateningOf(r *http.Request, d *desk, st workshop.Step, td timelineData, p store.StepPatch) (string, error) {
	e, err := a.previewOf(r.Context(), d, st, p)
	if workshop.ErrorCode(err) != workshop.CodeInternal { // a refusal: the move itself says it
		return "", nil
	}
	if err != nil || !e.later() {
		return "", err
	}
	return "This move makes a job later: " + e.words(td), nil
}

// previewAnswer is what the preview tells dispatch.js.
type previewAnswer struct {
	Effects string `json:"effects,omitempty"`
	Late    bool   `json:"late,omitempty"`
	Error   string `json:"error,omitempty"`
}

// movePreview answers what the move in the form (the move form's fields,
// as a drag or the form sends them) would do, writing nothing.
func (a *App) movePreview(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, allows(si, scopeBoardRead))
	if err != nil {
		return err
	}
	st, td, err := a.moveStepOf(r, d)
	if err != nil {
		return err
	}
	send := func(status int, ans previewAnswer) error {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		return json.NewEncoder(w).Encode(ans)
	}
	if st.Status != workshop.StepPending {
		return send(http.StatusOK, previewAnswer{Error: td.stepText(st.ID) + " is in progress: it stays where it is until it is completed."})
	}
	p, problem := d.patchOf(r, st)
	if problem != "" {
		return send(http.StatusUnprocessableEntity, previewAnswer{Error: problem})
	}
	e, err := a.previewOf(r.Context(), d, st, p)
	if err != nil {
		status, msg, known := refusalMessage(err)
		if !known {
			return err
		}
		return send(status, previewAnswer{Error: td.namesFor(msg)})
	}
	return send(http.StatusOK, previewAnswer{Effects: e.words(td), Late: e.later()})
}

// patchOf is the step change a move form asks for (action move or
// unschedule), or what is wrong with it.
func (d *desk) patchOf(r *http.Request, st workshop.Step) (store.StepPatch, string) {
	p := store.StepPatch{UpdatedAt: st.UpdatedAt}
	if r.PostFormValue("action") == "unschedule" {
		scheduleAt(&p, nil)
		return p, ""
	}
	start, err := time.ParseInLocation(startLayout, r.PostFormValue("start"), d.zone)
	if err != nil {
		return p, "The start is a date and a time, such as 2026-11-26 10:30."
	}
	techIDs := slices.Compact(slices.Sorted(slices.Values(r.PostForm["techIds"])))
	bay := optionalText(r.PostFormValue("bayId"))
	p.TechIDs, p.BayID = &techIDs, &bay
	scheduleAt(&p, &start)
	return p, ""
}
