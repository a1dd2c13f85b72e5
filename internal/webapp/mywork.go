package webapp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// myWorkPath is a technician's list of work.
const myWorkPath = "/my/work"

// assignedView is a step of a technician's list of work: what a person at
// the vehicle needs (job, plate, vehicle, bay), the plan's window, the
// estimate and the time spent on it so far.
type assignedView struct {
	JobID, JobNumber, Plate, Vehicle string
	ID, Label, Version               string
	Status, StatusLabel              string
	Bay                              string
	Planned                          string // the plan's start and end
	Estimate, Spent                  string // h:mm
	Started                          string // when it started, in the location's zone
	Changed                          bool   // changed since the list was last sent (the live list)
	MayStart, MayComplete            bool
	// Done confirms the start or completion just tapped, in the card's
	// place (the step keeps it, completed or not, while the list is
	// shown): a second quick tap lands on the words, not on another card.
	Done string
}

// myWorkData is a technician's list of work.
type myWorkData struct {
	Technician *workshop.Technician
	Steps      []assignedView
	Next       string // where the step actions come back to
	Live       string // the list's event stream
	// Refusal is why the start or complete just sent was refused, naming
	// the step: above the list, which the live stream replaces.
	Refusal string
	// Absences are the technician's own absences from today on.
	Absences []calendarRow
}

// myWork is the steps assigned to the technician the user works as, in
// progress first, each with its start or complete button (posted to the
// job desk's step actions, which come back here, ?done=KIND&step=ID
// confirming it). A user who works as no technician is told so.
func (a *App) myWork(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.renderMyWork(w, r, si, http.StatusOK, "", "")
}

// renderMyWork writes the list as it is now, with refusal beside the
// step stepID (a start or complete refused).
func (a *App) renderMyWork(w http.ResponseWriter, r *http.Request, si *store.SignedIn, status int, stepID, refusal string) error {
	if si.Member.TechnicianID == "" {
		h, err := a.headerOf(r, si, "")
		if err != nil {
			return err
		}
		return a.render(w, r, status, "mywork", view{Header: h, Data: myWorkData{}})
	}
	d, data, err := a.myWorkData(r.Context(), r, si, doneOf(r))
	if err != nil {
		return err
	}
	for _, v := range data.Steps {
		if v.ID == stepID && refusal != "" {
			data.Refusal = v.Label + " (" + v.JobNumber + ") was not changed: " + refusal
		}
	}
	if status != http.StatusOK {
		pushAddress(w, r, myWorkPath)
		w.Header().Set("HX-Reswap", "innerHTML show:#refusal:top")
	}
	return a.render(w, r, status, "mywork", view{Header: d.header, Data: data})
}

// myWorkData reads the technician's list, with the step of done kept in
// its place and confirmed, and the desk of their location.
func (a *App) myWorkData(ctx context.Context, r *http.Request, si *store.SignedIn, done jobDone) (*desk, myWorkData, error) {
	techID := si.Member.TechnicianID
	tech, err := a.store.Technician(ctx, store.Visibility{OrgID: si.Member.Org.ID}, techID)
	if err != nil {
		return nil, myWorkData{}, err
	}
	d, err := a.deskOf(r, si, tech.LocationID)
	if err != nil {
		return nil, myWorkData{}, err
	}
	data := myWorkData{Technician: &tech, Next: myWorkPath, Live: myWorkPath + "/events" + done.query()}
	if data.Steps, err = a.assignedViews(ctx, d, techID, done); err != nil {
		return d, data, err
	}
	absences, err := a.store.Absences(ctx, store.CalendarFilter{Visibility: d.visibility(), Owner: techID,
		From: a.now().In(d.zone).Format(time.DateOnly)}, workshop.PageRequest{Limit: listedLimit})
	for _, ab := range absences.Data {
		data.Absences = append(data.Absences, calendarRow{Start: d.when(ab.Start), End: d.when(ab.End), What: absenceReasonLabels[ab.Reason], Note: ab.Note})
	}
	return d, data, err
}

// myWorkDone is where a start or complete tapped on the list goes when
// it went through: the list, confirming it at the step.
func myWorkDone(kind, stepID string) string {
	return myWorkPath + jobDone{kind: kind, stepID: stepID}.query()
}

// place is where the list keeps the step of a start or completion: among
// the steps of the status it had.
func (d jobDone) place() store.StepPlace {
	switch d.kind {
	case doneStarted:
		return store.StepPlace{ID: d.stepID, Was: workshop.StepPending}
	case doneCompleted:
		return store.StepPlace{ID: d.stepID, Was: workshop.StepInProgress}
	}
	return store.StepPlace{}
}

// assignedViews are the technician's steps as the list shows them, the
// step of done in its place with its confirmation. The time spent on a
// step is its working time (the location's working hours between its
// start and its end or now), as its duration statistics count it: a step
// left in progress overnight has not taken the night.
func (a *App) assignedViews(ctx context.Context, d *desk, techID string, done jobDone) ([]assignedView, error) {
	steps, err := a.store.TechnicianSteps(ctx, techID, done.place())
	if err != nil {
		return nil, err
	}
	settings, err := a.store.Settings(ctx, d.loc.ID)
	if err != nil {
		return nil, err
	}
	cal := workshop.NewCalendar(d.zone, settings)
	bays, err := a.store.Bays(ctx, d.visibility(), workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return nil, err
	}
	bayName := map[string]string{}
	for _, b := range bays.Data {
		bayName[b.ID] = b.Name
	}
	now := a.now()
	plan, err := a.plans.Plan(ctx, d.loc.ID, now)
	if err != nil {
		return nil, err
	}
	planned := map[string]workshop.PlannedStep{}
	for _, ps := range plan.Dispatch.Steps {
		planned[ps.StepID] = ps
	}
	ac := actorOf(d.si)
	views := make([]assignedView, 0, len(steps))
	for _, as := range steps {
		st := as.Step
		v := assignedView{JobID: st.JobID, JobNumber: as.JobNumber, Plate: deref(as.VehiclePlate),
			Vehicle: strings.TrimSpace(deref(as.VehicleMake) + " " + deref(as.VehicleModel)), ID: st.ID, Label: st.Label,
			Version: versionOf(st.UpdatedAt), Status: st.Status, StatusLabel: stepStatusLabel(st.Status),
			Estimate: durationText(st.EstimatedDuration), Spent: "0:00",
			MayStart:    st.Status == workshop.StepPending && !d.closing && ac.MayWorkStep(st),
			MayComplete: st.Status == workshop.StepInProgress && !d.closing && ac.MayWorkStep(st)}
		if st.BayID != nil {
			v.Bay = bayName[*st.BayID]
		}
		if ps, ok := planned[st.ID]; ok {
			v.Planned = d.span(ps.Start, ps.End)
		}
		if st.StartedAt != nil {
			end := now
			if st.CompletedAt != nil {
				end = st.CompletedAt.Time()
			}
			v.Started = d.when(st.StartedAt.Time())
			v.Spent = durationText(workshop.StepWorkMinutes(cal, st.StartedAt.Time(), end))
		}
		if st.ID == done.stepID {
			v.Done = d.workDoneText(done, st)
		}
		views = append(views, v)
	}
	return views, nil
}

// myWorkEvents streams the technician's list as the board's stream does
// the board (live.js swaps it in): at once and after every change to the
// location. A step whose job, plan or state changed since the list was
// last sent is marked, so that a technician sees that their next step
// moved.
func (a *App) myWorkEvents(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	if si.Member.TechnicianID == "" {
		return errNoSuchPage
	}
	done := doneOf(r) // the page's: its step stays in place on every push
	d, _, err := a.myWorkData(r.Context(), r, si, done)
	if err != nil {
		return err
	}
	var last map[string]string // each step's look when last sent
	render := func(ctx context.Context) ([]byte, error) {
		steps, err := a.assignedViews(ctx, d, si.Member.TechnicianID, done)
		if err != nil {
			return nil, err
		}
		seen := map[string]string{}
		for i, v := range steps {
			look := strings.Join([]string{v.Version, v.Status, v.Bay, v.Planned, v.JobNumber, v.Plate, v.Vehicle}, "\x00")
			seen[v.ID] = look
			steps[i].Changed = last != nil && last[v.ID] != look
		}
		last = seen
		var b bytes.Buffer
		err = a.pages["mywork"].ExecuteTemplate(&b, "myWorkBody", myWorkData{Technician: &workshop.Technician{}, Steps: steps, Next: myWorkPath})
		return b.Bytes(), err
	}
	a.stream(w, r, si, d.loc.ID, render)
	return nil
}

// workRefusal is why a start or complete sent from a technician's list was
// refused, in the words of the person at the vehicle: their own limit is
// "your" limit; the bay's refusal names the bay and the job in it.
func workRefusal(err error, f form) string {
	var e *workshop.Error
	if errors.As(err, &e) {
		for _, fe := range e.Fields {
			switch fe.Code {
			case "wip_limit_exceeded":
				return "you are at your limit of steps in progress: complete one first."
			case "bay_occupied":
				return fe.Message
			}
		}
		switch e.Code {
		case workshop.CodeStaleUpdatedAt:
			return "someone else changed it meanwhile; the list shows it as it is now."
		case workshop.CodeDayCloseInProgress:
			return "the day is being closed at this location; steps cannot be changed until it finishes."
		}
	}
	return f.message()
}
