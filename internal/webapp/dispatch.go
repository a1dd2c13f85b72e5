package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The dispatch view (contract section 7): the location's plan (section 8)
// on a timeline per technician or per bay, the steps it could not place
// and why, the jobs at risk, accepting the plan whole or step by step,
// and moving a step by hand (dispatch_move.go). It is live like the board
// (dispatch_live.go).

const scopeBoardRead = workshop.Scope("board:read")

func (a *App) dispatchRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/dispatch", a.member(a.dispatchPage))
	mux.Handle("GET /locations/{locationID}/dispatch/events", a.member(a.dispatchEvents))
	mux.Handle("GET /locations/{locationID}/dispatch/week", a.member(a.dispatchWeek))
	mux.Handle("POST /locations/{locationID}/dispatch/apply", a.member(a.applyPlan))
	mux.Handle("GET /locations/{locationID}/dispatch/steps/{stepID}", a.member(a.moveForm))
	mux.Handle("POST /locations/{locationID}/dispatch/steps/{stepID}/move", a.member(a.moveStep))
	mux.Handle("POST /locations/{locationID}/dispatch/steps/{stepID}/preview", a.member(a.movePreview))
}

func dispatchPath(locationID string) string { return "/locations/" + locationID + "/dispatch" }

// unplacedReasons say why the plan could not place a step.
var unplacedReasons = map[string]string{
	workshop.UnplacedNoTechnician: "No technician has the skills, or every one who has is unavailable",
	workshop.UnplacedNoBay:        "No bay takes this service, or every one is in maintenance",
	workshop.UnplacedBeyond:       "It does not fit in the next 14 days",
	workshop.UnplacedAfter:        "It waits for a step of its job that cannot be placed",
}

// dispatchQuery is what a dispatch page or stream is asked for: the date
// ("" for the first day with planned work) and the rows.
type dispatchQuery struct {
	date  string
	byBay bool
	zoom  string // "" the day, zoomHalf, zoomTwoHours
}

// query is the query string that asks for q ("" or "?..."), with extra
// (a message to show) added.
func (q dispatchQuery) query(extra url.Values) string {
	v := url.Values{}
	for k, vs := range extra {
		v[k] = vs
	}
	if q.date != "" {
		v.Set("date", q.date)
	}
	if q.byBay {
		v.Set("by", "bay")
	}
	if q.zoom != "" && q.zoom != zoomDay {
		v.Set("zoom", q.zoom)
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// readDispatchQuery reads the query; a bad date is a 400 that says how
// to write one.
func readDispatchQuery(r *http.Request, d *desk) (dispatchQuery, error) {
	q := dispatchQuery{date: r.URL.Query().Get("date"), byBay: r.URL.Query().Get("by") == "bay", zoom: r.URL.Query().Get("zoom")}
	if _, err := time.Parse(time.DateOnly, q.date); q.date != "" && err != nil {
		return q, messageError(http.StatusBadRequest, d.header, "Not a date", "The date is written YYYY-MM-DD, such as 2026-11-25.")
	}
	return q, nil
}

func (a *App) dispatchPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, allows(si, scopeBoardRead))
	if err != nil {
		return err
	}
	q, err := readDispatchQuery(r, d)
	if err != nil {
		return err
	}
	return a.renderDispatch(w, r, d, q, http.StatusOK, "")
}

// dispatchBody is what the page's live part renders: the page and every
// push of its stream alike.
type dispatchBody struct {
	LocationID string
	MayWrite   bool
	T          timelineView
}

// dispatchBodyOf reads the plan of the asked date and draws it. With no
// date it is the first day, from today, on which the plan has work.
func (a *App) dispatchBodyOf(r *http.Request, d *desk, q dispatchQuery) (dispatchBody, timelineData, error) {
	ctx := r.Context()
	now := a.now()
	plan, err := a.plans.Plan(ctx, d.loc.ID, now)
	if err != nil {
		return dispatchBody{}, timelineData{}, err
	}
	date := q.date
	if date == "" {
		date = firstWorkDay(plan, d.zone, now)
	}
	if _, err := plan.Day(date, now); err != nil { // one plan, 14 days of it
		return dispatchBody{}, timelineData{}, messageError(http.StatusUnprocessableEntity, d.header, "Outside the plan",
			"The plan covers today and the next 13 days; pick a day among them.")
	}
	if err := a.plans.Anchor(ctx, plan); err != nil { // the plan a person saw, which later plans stay near
		return dispatchBody{}, timelineData{}, err
	}
	td, err := a.names.of(ctx, a.store, d.loc.ID, plan.Version) // the names and records of what the plan speaks of
	if err != nil {
		return dispatchBody{}, timelineData{}, err
	}
	t := d.dayTimeline(plan, date, td, q.byBay, q.zoom, now)
	if !q.byBay {
		day, _ := time.ParseInLocation(time.DateOnly, date, d.zone)
		caps, err := a.capacity(ctx, plan, day, 1, now)
		if err != nil {
			return dispatchBody{}, timelineData{}, err
		}
		d.rowHours(t.Rows, caps[0])
	}
	return dispatchBody{LocationID: d.loc.ID, MayWrite: mayWrite(d.si), T: t}, td, nil
}

// firstWorkDay is the local date of the first planned step that is not
// over yet; today when the plan has nothing.
func firstWorkDay(p *planning.Plan, zone *time.Location, now time.Time) string {
	var first time.Time
	for _, ps := range p.Dispatch.Steps {
		at := workshop.Later(ps.Start, now)
		if ps.End.After(now) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	if first.IsZero() {
		first = now
	}
	return first.In(zone).Format(time.DateOnly)
}

func (a *App) renderDispatch(w http.ResponseWriter, r *http.Request, d *desk, q dispatchQuery, status int, problem string) error {
	body, td, err := a.dispatchBodyOf(r, d, q)
	if err != nil {
		return err
	}
	f := form{Values: map[string]string{}, Errors: map[string]string{}}
	if problem != "" {
		f.Errors[""] = problem
	}
	shown := dispatchQuery{date: body.T.Date, byBay: q.byBay, zoom: q.zoom} // the stream stays on the day shown
	body.T.Zooms = zoomLinks(body.T.Zoom)
	return a.render(w, r, status, "dispatch", view{Header: d.header, Form: f, Data: map[string]any{"Location": d.loc,
		"Body": body, "Live": dispatchPath(d.loc.ID) + "/events" + shown.query(nil), "Done": doneMessage(r.URL.Query(), td),
		"Undo": undoFromQuery(d.loc.ID, r.URL.Query())}})
}

// applyPlan accepts what the plan chose: for every step it assigned, or
// for the one step sent (stepId).
func (a *App) applyPlan(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	q := dispatchQuery{date: r.PostFormValue("date"), byBay: r.PostFormValue("by") == "bay", zoom: r.PostFormValue("zoom")}
	var stepIDs []string
	if id := r.PostFormValue("stepId"); id != "" {
		stepIDs = []string{id}
	}
	before, err := a.plans.Plan(r.Context(), d.loc.ID, a.now())
	if err == nil && r.PostFormValue("scope") == "day" { // this day's proposals alone
		if stepIDs = d.dayProposals(before, q.date); len(stepIDs) == 0 {
			http.Redirect(w, r, dispatchPath(d.loc.ID)+q.query(url.Values{"accepted": {"day"}, "n": {"0"}}), http.StatusSeeOther)
			return nil
		}
	}
	if err == nil {
		var after *planning.Plan
		if after, err = a.plans.Apply(r.Context(), d.visibility(), d.loc.ID, stepIDs, a.now); err == nil {
			done := url.Values{"accepted": {"all"}, "n": {strconv.Itoa(proposedCount(before) - proposedCount(after))}}
			switch {
			case r.PostFormValue("scope") == "day":
				done.Set("accepted", "day")
			case stepIDs != nil:
				done = url.Values{"accepted": {stepIDs[0]}}
			}
			http.Redirect(w, r, dispatchPath(d.loc.ID)+q.query(done), http.StatusSeeOther)
			return nil
		}
	}
	status, msg, known := refusalMessage(err)
	if !known {
		return err
	}
	return a.renderDispatch(w, r, d, q, status, msg)
}

func proposedCount(p *planning.Plan) int {
	n := 0
	for _, st := range p.Dispatch.Steps {
		if !st.Pinned {
			n++
		}
	}
	return n
}

// doneMessage says exactly what the last write of this page did, from the
// query its redirect left: a step accepted, the plan accepted, a step moved.
func doneMessage(q url.Values, td timelineData) string {
	switch id := q.Get("accepted"); {
	case id == "all" || id == "day":
		n, _ := strconv.Atoi(q.Get("n"))
		if n <= 0 && id == "day" {
			return "The plan had no proposals left on this day: nothing was changed."
		}
		if n <= 0 {
			return "The plan had no proposals left to accept: nothing was changed."
		}
		if id == "day" {
			return "Accepted this day's proposals: the technicians and bays the plan proposed are now assigned to " + strconv.Itoa(n) + " step" + plural(n) + "."
		}
		return "Accepted the whole plan: the technicians and bays it proposed are now assigned to " + strconv.Itoa(n) + " step" + plural(n) + "."
	case id != "":
		st, ok := td.steps[id]
		if !ok {
			return "Accepted the step."
		}
		return "Accepted " + td.stepText(id) + ": " + td.assignment(st) + "."
	}
	if id := q.Get("moved"); id != "" {
		st, ok := td.steps[id]
		if !ok {
			return "Moved the step."
		}
		if q.Get("how") == "undo" {
			return undoneMessage(td, st)
		}
		return moveMessage(td, st, q.Get("how") == "unschedule")
	}
	return ""
}

// assignment says who and where a step is assigned to.
func (td timelineData) assignment(st workshop.Step) string {
	who := td.techNames(st.TechIDs)
	if who == "" {
		who = "no technician"
	}
	if st.BayID != nil {
		who += ", " + td.bays[*st.BayID].Name
	}
	return who
}
