package webapp

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The dispatch view (contract section 7): the location's plan (section 8)
// on a timeline per technician and per bay, the steps it could not place
// and why, the jobs at risk, and accepting the plan whole or step by
// step. A step is assigned by hand on its job's page.

const scopeBoardRead = workshop.Scope("board:read")

func (a *App) dispatchRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/dispatch", a.member(a.dispatchPage))
	mux.Handle("POST /locations/{locationID}/dispatch/apply", a.member(a.applyPlan))
}

func dispatchPath(locationID string) string { return "/locations/" + locationID + "/dispatch" }

var unplacedReasons = map[string]string{
	workshop.UnplacedNoTechnician: "No technician has the skills, or every one who has is unavailable",
	workshop.UnplacedNoBay:        "No bay takes this service, or every one is in maintenance",
	workshop.UnplacedBeyond:       "It does not fit in the next 14 days",
	workshop.UnplacedAfter:        "It waits for a step of its job that cannot be placed",
}

func (a *App) dispatchPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, allows(si, scopeBoardRead))
	if err != nil {
		return err
	}
	date := r.URL.Query().Get("date")
	if _, err := time.Parse(time.DateOnly, date); date != "" && err != nil {
		return a.render(w, r, http.StatusBadRequest, "message", view{Header: d.header, Data: map[string]string{"Title": "Not a date",
			"Text": "The date is written YYYY-MM-DD, such as 2026-11-25."}})
	}
	return a.renderDispatch(w, r, d, date, http.StatusOK, "")
}

// applyPlan accepts what the plan chose: for every step it assigned, or
// for the one step sent (stepId).
func (a *App) applyPlan(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	var stepIDs []string
	if id := r.PostFormValue("stepId"); id != "" {
		stepIDs = []string{id}
	}
	_, err = a.plans.Apply(r.Context(), d.visibility(), d.loc.ID, stepIDs, a.now)
	if err == nil {
		http.Redirect(w, r, dispatchPath(d.loc.ID)+"?accepted=1", http.StatusSeeOther)
		return nil
	}
	status, msg, known := refusalMessage(err)
	if !known {
		return err
	}
	return a.renderDispatch(w, r, d, "", status, msg)
}

// slot is a planned step as the view shows it.
type slot struct {
	StepID, JobID, Job, Label, When string
	With                            string // the bay (a technician's lane) or the technicians (a bay's)
	Pinned                          bool
	Left, Width                     float64 // on the date's lane, in percent; Width 0: not on the date
}

// lane is one technician's or bay's planned steps.
type lane struct {
	Name  string
	Slots []slot
}

// dispatchView is the plan made readable.
type dispatchView struct {
	Date                 string
	Totals               workshop.DispatchTotals
	Techs, Bays          []lane
	Unplaced, AtRisk     []map[string]string
	Proposed             int // steps the plan assigned and nobody accepted yet
	WindowFrom, WindowTo string
}

func (a *App) renderDispatch(w http.ResponseWriter, r *http.Request, d *desk, date string, status int, problem string) error {
	ctx := r.Context()
	now := a.now()
	plan, err := a.plans.Plan(ctx, d.loc.ID, date, now)
	if err == nil {
		err = a.plans.Anchor(ctx, plan, now) // the plan a person saw, which later plans stay near
	}
	if err != nil {
		return err
	}
	data, err := a.store.PlanData(ctx, d.loc.ID) // the names of what the plan speaks of
	if err != nil {
		return err
	}
	f := form{Values: map[string]string{}, Errors: map[string]string{}}
	if problem != "" {
		f.Errors[""] = problem
	}
	return a.render(w, r, status, "dispatch", view{Header: d.header, Form: f, Data: map[string]any{"Location": d.loc,
		"Plan": d.dispatchOf(plan, data), "MayWrite": mayWrite(d.si), "Accepted": r.URL.Query().Get("accepted") == "1"}})
}

func (d *desk) dispatchOf(p *planning.Plan, data store.PlanData) dispatchView {
	jobs, steps := map[string]string{}, map[string]string{}
	for _, j := range data.Jobs {
		jobs[j.ID] = j.JobNumber
		for _, st := range j.Steps {
			steps[st.ID] = st.Label
		}
	}
	v := dispatchView{Date: p.Date, Totals: p.Dispatch.Totals}
	from, to := d.window(p)
	v.WindowFrom, v.WindowTo = from.In(d.zone).Format("15:04"), to.In(d.zone).Format("15:04")
	techName, bayName := map[string]string{}, map[string]string{}
	for _, t := range data.Techs {
		techName[t.ID] = t.Name
	}
	for _, b := range data.Bays {
		bayName[b.ID] = b.Name
	}
	techLanes, bayLanes := map[string]*lane{}, map[string]*lane{}
	for _, t := range data.Techs {
		techLanes[t.ID] = &lane{Name: t.Name}
	}
	for _, b := range data.Bays {
		bayLanes[b.ID] = &lane{Name: b.Name}
	}
	for _, ps := range p.Dispatch.Steps {
		s := slot{StepID: ps.StepID, JobID: ps.JobID, Job: jobs[ps.JobID], Label: steps[ps.StepID], Pinned: ps.Pinned,
			When: d.when(ps.Start) + "–" + ps.End.In(d.zone).Format("15:04")}
		if !ps.Pinned {
			v.Proposed++
		}
		if ps.Start.Before(to) && ps.End.After(from) {
			span := to.Sub(from).Seconds()
			start, end := max(ps.Start.Sub(from).Seconds(), 0), min(ps.End.Sub(from).Seconds(), span)
			s.Left, s.Width = 100*start/span, max(100*(end-start)/span, 1)
		}
		var names []string
		for _, id := range ps.TechIDs {
			names = append(names, techName[id])
		}
		if l := bayLanes[ps.BayID]; l != nil {
			bs := s
			bs.With = strings.Join(names, ", ")
			l.Slots = append(l.Slots, bs)
		}
		for _, id := range ps.TechIDs {
			if l := techLanes[id]; l != nil {
				ts := s
				ts.With = bayName[ps.BayID]
				l.Slots = append(l.Slots, ts)
			}
		}
	}
	for _, t := range data.Techs {
		v.Techs = append(v.Techs, *techLanes[t.ID])
	}
	for _, b := range data.Bays {
		v.Bays = append(v.Bays, *bayLanes[b.ID])
	}
	for _, u := range p.Dispatch.Unplaced {
		v.Unplaced = append(v.Unplaced, map[string]string{"JobID": u.JobID, "Job": jobs[u.JobID], "StepID": u.StepID,
			"Label": steps[u.StepID], "Reason": unplacedReasons[u.Reason], "BlockedBy": u.BlockedBy, "BlockedByLabel": steps[u.BlockedBy]})
	}
	for _, o := range p.Dispatch.Jobs {
		if !o.AtRisk {
			continue
		}
		risk := map[string]string{"JobID": o.JobID, "Job": jobs[o.JobID], "Promise": "none", "Projected": "a step cannot be placed"}
		if o.PromiseTime != nil {
			risk["Promise"] = d.when(*o.PromiseTime)
		}
		if o.ProjectedCompletion != nil {
			risk["Projected"] = d.when(*o.ProjectedCompletion) + ", " + durationText(o.LateMinutes) + " late"
		}
		v.AtRisk = append(v.AtRisk, risk)
	}
	return v
}

// window is the part of the plan's date the lanes draw: the date's
// opening hours, widened to the steps planned on it.
func (d *desk) window(p *planning.Plan) (from, to time.Time) {
	day, _ := time.ParseInLocation(time.DateOnly, p.Date, d.zone)
	from, to = day.Add(8*time.Hour), day.Add(18*time.Hour) // a closed day: the usual working day
	weekday := workshop.Weekdays[(int(day.Weekday())+6)%7]
	if i := slices.IndexFunc(p.Settings.OperatingHours, func(h workshop.OpeningHours) bool { return h.Day == weekday }); i >= 0 {
		h := p.Settings.OperatingHours[i]
		open, _ := time.Parse("15:04", h.Open)
		close, _ := time.Parse("15:04", h.Close)
		from = time.Date(day.Year(), day.Month(), day.Day(), open.Hour(), open.Minute(), 0, 0, d.zone)
		to = time.Date(day.Year(), day.Month(), day.Day(), close.Hour(), close.Minute(), 0, 0, d.zone)
	}
	end := day.AddDate(0, 0, 1)
	for _, ps := range p.Dispatch.Steps {
		if ps.Start.Before(end) && ps.End.After(day) {
			from, to = workshop.Earlier(from, workshop.Later(ps.Start, day)), workshop.Later(to, workshop.Earlier(ps.End, end))
		}
	}
	return from, to
}
