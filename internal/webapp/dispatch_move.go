package webapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Moving a step by hand: one form per step (GET .../dispatch/steps/{id},
// the page a bar links to, which works without JavaScript) posts the
// step's technicians, bay and start to .../move, as dispatch.js's drags
// and keyboard moves do. The move is one step PATCH through the store's
// PatchStep, the API's own write, with the updatedAt the page was drawn
// from: the same rules, refusals and events. A technician without the
// step's skills, or a bay that does not offer its service, is not refused
// (a person may know better) but asked about first.

// startLayout is how a move's start is written: the location's local
// time, as an <input type="datetime-local"> sends it.
const startLayout = "2006-01-02T15:04"

// moveData is the move form of a step.
type moveData struct {
	Location                        workshop.Location
	StepID, JobID, Text, Assignment string
	Date, By, Back                  string // the dispatch page to go back to
	Techs, Bays                     []option
	Start, UpdatedAt                string
	Proposed                        bool
	Warning                         string // what to confirm
	Zone                            string
}

// moveStepOf finds a step of the location's open jobs.
func (a *App) moveStepOf(r *http.Request, d *desk) (workshop.Step, timelineData, error) {
	data, err := a.store.PlanData(r.Context(), d.loc.ID)
	if err != nil {
		return workshop.Step{}, timelineData{}, err
	}
	td := timelineDataOf(data)
	st, ok := td.steps[r.PathValue("stepID")]
	if !ok {
		return st, td, errNoSuchPage
	}
	return st, td, nil
}

func (a *App) moveForm(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	st, td, err := a.moveStepOf(r, d)
	if err != nil {
		return err
	}
	q, err := readDispatchQuery(r, d)
	if err != nil {
		return err
	}
	m := d.moveDataOf(st, td, q.date, r.URL.Query().Get("by"))
	plan, err := a.plans.Plan(r.Context(), d.loc.ID, a.now())
	if err != nil {
		return err
	}
	// The form starts from where the plan has the step.
	for _, ps := range plan.Dispatch.Steps {
		if ps.StepID == st.ID {
			m.Start, m.Proposed = ps.Start.In(d.zone).Format(startLayout), !ps.Pinned
			m.Techs, m.Bays = d.moveOptions(td, ps.TechIDs, ps.BayID)
		}
	}
	return a.render(w, r, http.StatusOK, "dispatch_move", view{Header: d.header, Data: m})
}

func (d *desk) moveDataOf(st workshop.Step, td timelineData, date, by string) moveData {
	m := moveData{Location: d.loc, StepID: st.ID, JobID: st.JobID, Text: td.stepText(st.ID), Assignment: td.assignment(st),
		Date: date, By: by, Back: dispatchPath(d.loc.ID) + dispatchQuery{date: date, byBay: by == "bay"}.query(nil), UpdatedAt: versionOf(st.UpdatedAt), Zone: d.loc.Timezone}
	m.Techs, m.Bays = d.moveOptions(td, st.TechIDs, deref(st.BayID))
	return m
}

// moveOptions are the technicians and bays to choose from, those given chosen.
func (d *desk) moveOptions(td timelineData, techIDs []string, bayID string) (techs, bays []option) {
	for _, t := range td.data.Techs {
		label := t.Name
		if t.Status == "unavailable" {
			label += " (unavailable)"
		}
		techs = append(techs, option{Value: t.ID, Label: label, Checked: slices.Contains(techIDs, t.ID)})
	}
	for _, b := range td.data.Bays {
		label := b.Name
		if b.Status == "maintenance" {
			label += " (maintenance)"
		}
		bays = append(bays, option{Value: b.ID, Label: label, Checked: b.ID == bayID})
	}
	return techs, bays
}

// moveAnswer is what a move tells dispatch.js (which asks for JSON).
type moveAnswer struct {
	Message string `json:"message,omitempty"` // done
	Confirm string `json:"confirm,omitempty"` // not done: ask, then send again with confirm=1
	Error   string `json:"error,omitempty"`   // refused, in words
}

func (a *App) moveStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	st, td, err := a.moveStepOf(r, d)
	if err != nil {
		return err
	}
	f := formOf(r, "bayId", "start", "updatedAt", "confirm", "action", "date", "by")
	techIDs := slices.Compact(slices.Sorted(slices.Values(r.PostForm["techIds"])))
	m := d.moveDataOf(st, td, f.Values["date"], f.Values["by"])
	m.Techs, m.Bays = d.moveOptions(td, techIDs, f.Values["bayId"])
	m.Start, m.UpdatedAt = f.Values["start"], f.Values["updatedAt"]
	answer := func(status int, ans moveAnswer) error {
		if strings.Contains(r.Header.Get("Accept"), "application/json") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(ans)
			return nil
		}
		if ans.Message != "" {
			q := dispatchQuery{date: m.Date, byBay: m.By == "bay"}
			http.Redirect(w, r, dispatchPath(d.loc.ID)+q.query(url.Values{"moved": {st.ID}, "how": {f.Values["action"]}}), http.StatusSeeOther)
			return nil
		}
		m.Warning = ans.Confirm
		fm := form{Values: map[string]string{}, Errors: map[string]string{"": ans.Error}}
		return a.render(w, r, status, "dispatch_move", view{Header: d.header, Form: fm, Data: m})
	}

	p := store.StepPatch{UpdatedAt: parseVersion(f.Values["updatedAt"])}
	if f.Values["action"] != "unschedule" {
		start, err := time.ParseInLocation(startLayout, f.Values["start"], d.zone)
		if err != nil {
			return answer(http.StatusUnprocessableEntity, moveAnswer{Error: "The start is a date and a time, such as 2026-11-26 10:30."})
		}
		if warning := moveWarning(st, td, techIDs, f.Values["bayId"]); warning != "" && f.Values["confirm"] != "1" {
			return answer(http.StatusOK, moveAnswer{Confirm: warning + " Move it anyway?"})
		}
		bay := optionalText(f.Values["bayId"])
		p.TechIDs, p.BayID = &techIDs, &bay
		scheduleAt(&p, &start)
	} else {
		scheduleAt(&p, nil)
	}
	moved, err := a.store.PatchStep(r.Context(), d.visibility(), st.JobID, st.ID, p, workshop.MicrosOf(a.now()))
	if err != nil {
		status, msg, known := refusalMessage(err)
		if !known {
			return err
		}
		if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
			msg = "Someone else changed this step since your page showed it, so it was not moved; it is shown where it is now."
		}
		return answer(status, moveAnswer{Error: td.namesFor(msg)})
	}
	return answer(http.StatusOK, moveAnswer{Message: moveMessage(td, moved, f.Values["action"] == "unschedule")})
}

// moveMessage says what a move did.
func moveMessage(td timelineData, st workshop.Step, unscheduled bool) string {
	if unscheduled {
		return "Unscheduled " + td.stepText(st.ID) + ": the planner times it again; it stays with " + td.assignment(st) + "."
	}
	return "Moved " + td.stepText(st.ID) + " to " + td.assignment(st) + "."
}

// moveWarning names what the step needs that the chosen technicians or
// bay do not have ("" when nothing).
func moveWarning(st workshop.Step, td timelineData, techIDs []string, bayID string) string {
	var warnings []string
	skills := td.data.Skills[deref(st.ServiceCode)]
	for _, id := range techIDs {
		if slices.Contains(st.TechIDs, id) {
			continue // already on the step: nothing new
		}
		t := td.techs[id]
		var missing []string
		for _, s := range skills {
			if !slices.Contains(t.Skills, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			warnings = append(warnings, t.Name+" lacks the skills "+strings.Join(missing, ", ")+" this step needs.")
		}
	}
	if b, ok := td.bays[bayID]; ok && bayID != deref(st.BayID) && st.ServiceCode != nil && len(b.Services) > 0 &&
		!slices.Contains(b.Services, *st.ServiceCode) {
		warnings = append(warnings, b.Name+" does not offer the service "+*st.ServiceCode+".")
	}
	return strings.Join(warnings, " ")
}

// scheduleAt sets the step's notBefore (nil: the planner times it).
func scheduleAt(p *store.StepPatch, at *time.Time) {
	var nb *workshop.OffsetTime
	if at != nil {
		nb = &workshop.OffsetTime{Time: *at}
	}
	p.NotBefore = &nb
}

// namesFor puts the names of the technicians and bays for their ids in a
// refusal of the store, which speaks as the API does.
func (td timelineData) namesFor(msg string) string {
	for id, t := range td.techs {
		msg = strings.ReplaceAll(msg, id, t.Name)
	}
	for id, b := range td.bays {
		msg = strings.ReplaceAll(msg, id, b.Name)
	}
	return msg
}
