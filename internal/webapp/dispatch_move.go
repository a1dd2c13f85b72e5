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
	Proposal                        string // who, where and when the planner proposes
	Warning                         string // what to confirm
	Zone                            string
	Effects                         string // what the move as the form has it would do (the preview)
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
			m.Proposal = td.techNames(ps.TechIDs)
			if b, ok := td.bays[ps.BayID]; ok {
				m.Proposal += ", " + b.Name
			}
			m.Proposal += ", " + d.when(ps.Start) + "–" + clockText(ps.End, d.zone)
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
	Message   string    `json:"message,omitempty"`   // done
	UpdatedAt string    `json:"updatedAt,omitempty"` // the step's version after it
	Undo      *moveUndo `json:"undo,omitempty"`      // how to put it back
	Confirm   string    `json:"confirm,omitempty"`   // not done: ask, then send again with confirm=1
	Error     string    `json:"error,omitempty"`     // refused, in words
}

// moveUndo puts a moved step back: the form fields of a move (action
// undo) that restore its technicians, bay and notBefore, with the version
// the move left it at, so that a change made since is a conflict (409).
type moveUndo struct {
	URL    string              `json:"url"`
	StepID string              `json:"step"`
	Fields map[string][]string `json:"fields"`
}

// undoOf is the undo of a move of a step that was before.
func undoOf(locationID string, before, after workshop.Step) *moveUndo {
	nb := ""
	if before.NotBefore != nil {
		nb = before.NotBefore.Time.Format(time.RFC3339)
	}
	return &moveUndo{URL: dispatchPath(locationID) + "/steps/" + before.ID + "/move", StepID: before.ID,
		Fields: map[string][]string{"action": {"undo"}, "techIds": slices.Clone(before.TechIDs), "bayId": {deref(before.BayID)},
			"notBefore": {nb}, "updatedAt": {versionOf(after.UpdatedAt)}}}
}

// undoQuery carries an undo in the query of the page a move redirects to
// (without JavaScript), and undoForm reads it back.
func (u *moveUndo) query(v url.Values) {
	for k, vs := range u.Fields {
		if k != "action" {
			v["undo."+k] = vs
		}
	}
}

func undoFromQuery(locationID string, q url.Values) *moveUndo {
	id := q.Get("moved")
	if id == "" || q.Get("undo.updatedAt") == "" {
		return nil
	}
	u := &moveUndo{URL: dispatchPath(locationID) + "/steps/" + id + "/move", StepID: id, Fields: map[string][]string{"action": {"undo"}}}
	for _, k := range []string{"techIds", "bayId", "notBefore", "updatedAt"} {
		u.Fields[k] = q["undo."+k]
	}
	return u
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
	f := formOf(r, "bayId", "start", "updatedAt", "confirm", "action", "date", "by", "zoom", "notBefore")
	techIDs := slices.Compact(slices.Sorted(slices.Values(r.PostForm["techIds"])))
	m := d.moveDataOf(st, td, f.Values["date"], f.Values["by"])
	m.Techs, m.Bays = d.moveOptions(td, techIDs, f.Values["bayId"])
	m.Start, m.UpdatedAt = f.Values["start"], f.Values["updatedAt"]
	action := f.Values["action"]
	answer := func(status int, ans moveAnswer) error {
		if strings.Contains(r.Header.Get("Accept"), "application/json") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(ans)
			return nil
		}
		if ans.Message != "" {
			q := dispatchQuery{date: m.Date, byBay: m.By == "bay", zoom: f.Values["zoom"]}
			v := url.Values{"moved": {st.ID}, "how": {action}}
			if ans.Undo != nil {
				ans.Undo.query(v)
			}
			http.Redirect(w, r, dispatchPath(d.loc.ID)+q.query(v), http.StatusSeeOther)
			return nil
		}
		m.Warning = ans.Confirm
		fm := form{Values: map[string]string{}, Errors: map[string]string{"": ans.Error}}
		return a.render(w, r, status, "dispatch_move", view{Header: d.header, Form: fm, Data: m})
	}

	if action == "preview" { // without JavaScript: the form again, with what the move would do
		p, problem := d.patchOf(r, st)
		if st.Status != workshop.StepPending {
			m.Effects = td.stepText(st.ID) + " is in progress: it stays where it is until it is completed."
		} else if problem == "" {
			e, err := a.previewOf(r.Context(), d, st, p)
			if err != nil {
				status, msg, known := refusalMessage(err)
				if !known {
					return err
				}
				return answer(status, moveAnswer{Error: td.namesFor(msg)})
			}
			m.Effects = "If moved so: " + e.words(td)
		}
		return answer(http.StatusOK, moveAnswer{Error: problem})
	}
	p := store.StepPatch{UpdatedAt: parseVersion(f.Values["updatedAt"])}
	switch action {
	case "unschedule":
		scheduleAt(&p, nil)
	case "undo": // back to the technicians, bay and notBefore it had
		bay := optionalText(f.Values["bayId"])
		p.TechIDs, p.BayID = &techIDs, &bay
		var at *time.Time
		if nb := f.Values["notBefore"]; nb != "" {
			t, err := time.Parse(time.RFC3339, nb)
			if err != nil {
				return answer(http.StatusUnprocessableEntity, moveAnswer{Error: "The time to put the step back at is not a time."})
			}
			at = &t
		}
		scheduleAt(&p, at)
	default:
		start, err := time.ParseInLocation(startLayout, f.Values["start"], d.zone)
		if err != nil {
			return answer(http.StatusUnprocessableEntity, moveAnswer{Error: "The start is a date and a time, such as 2026-11-26 10:30."})
		}
		bay := optionalText(f.Values["bayId"])
		p.TechIDs, p.BayID = &techIDs, &bay
		scheduleAt(&p, &start)
		if f.Values["confirm"] != "1" {
			warning, err := a.moveCost(r, d, st, td, p)
			if err != nil {
				return err
			}
			if warning != "" {
				return answer(http.StatusOK, moveAnswer{Confirm: warning + " Move it anyway?"})
			}
		}
	}
	moved, err := a.store.PatchStep(r.Context(), d.visibility(), st.JobID, st.ID, p, workshop.MicrosOf(a.now()))
	if err != nil {
		status, msg, known := refusalMessage(err)
		if !known {
			return err
		}
		if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
			msg = "Someone else changed this step since your page showed it, so it was not moved; it is shown where it is now."
			if action == "undo" {
				msg = "Someone else changed " + td.stepText(st.ID) + " since it was moved, so it was not put back; it is shown where it is now."
			}
		}
		return answer(status, moveAnswer{Error: td.namesFor(msg)})
	}
	if action == "undo" {
		return answer(http.StatusOK, moveAnswer{Message: undoneMessage(td, moved), UpdatedAt: versionOf(moved.UpdatedAt)})
	}
	return answer(http.StatusOK, moveAnswer{Message: moveMessage(td, moved, action == "unschedule"), UpdatedAt: versionOf(moved.UpdatedAt),
		Undo: undoOf(d.loc.ID, st, moved)})
}

// moveMessage says what a move did.
func moveMessage(td timelineData, st workshop.Step, unscheduled bool) string {
	if unscheduled {
		return "Unscheduled " + td.stepText(st.ID) + ": the planner times it again; it stays with " + td.assignment(st) + "."
	}
	return "Moved " + td.stepText(st.ID) + " to " + td.assignment(st) + "."
}

// undoneMessage says where an undo put a step back.
func undoneMessage(td timelineData, st workshop.Step) string {
	when := "timed by the planner"
	if st.NotBefore != nil {
		when = "not before " + dateTimeText(st.NotBefore.Time, td.zone())
	}
	return "Put " + td.stepText(st.ID) + " back: " + td.assignment(st) + ", " + when + "."
}

// moveCost is what to ask before a move: what the step needs that the
// chosen technicians or bay lack, and the jobs the move makes late.
func (a *App) moveCost(r *http.Request, d *desk, st workshop.Step, td timelineData, p store.StepPatch) (string, error) {
	warning, err := a.moveWarning(r, d, st, td, *p.TechIDs, deref(*p.BayID))
	if err != nil {
		return "", err
	}
	late, err := a.lateningOf(r, d, st, td, p)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(warning + " " + late), nil
}

// moveWarning names what the step needs that the chosen technicians or
// bay do not have ("" when nothing), as staff know them: the skills in
// words, the service by its catalog name.
func (a *App) moveWarning(r *http.Request, d *desk, st workshop.Step, td timelineData, techIDs []string, bayID string) (string, error) {
	code := deref(st.ServiceCode)
	service := st.Label
	if code != "" {
		items, err := a.store.CatalogItemsByCode(r.Context(), d.loc.ID, []string{code})
		if err != nil {
			return "", err
		}
		if it, ok := items[code]; ok && it.Name != "" {
			service = it.Name
		}
	}
	var warnings []string
	skills := td.data.Skills[code]
	for _, id := range techIDs {
		if slices.Contains(st.TechIDs, id) {
			continue // already on the step: nothing new
		}
		t := td.techs[id]
		var missing []string
		for _, s := range skills {
			if !slices.Contains(t.Skills, s) {
				missing = append(missing, skillWords(s))
			}
		}
		if len(missing) > 0 {
			warnings = append(warnings, t.Name+" does not have the "+listWords(missing)+" skill"+plural(len(missing))+" that "+service+" needs.")
		}
	}
	if b, ok := td.bays[bayID]; ok && bayID != deref(st.BayID) && code != "" && len(b.Services) > 0 &&
		!slices.Contains(b.Services, code) {
		warnings = append(warnings, b.Name+" does not take "+service+".")
	}
	return strings.Join(warnings, " "), nil
}

// skillWords is a skill as staff say it: "high_voltage" is "high voltage".
func skillWords(key string) string {
	return strings.Join(strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }), " ")
}

// listWords joins words as a sentence lists them: "a", "a and b", "a, b and c".
func listWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
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
