package webapp

import (
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A technician's absences on their page and a bay's maintenance windows on
// its page: listed, added and removed (after a confirmation), through the
// same store operations as the API (contract section 4).

// calendarView is the "calendar" template's argument.
type calendarView struct {
	Heading, Intro, Empty, WhatLabel, AddLabel string
	Rows                                       []calendarRow
	Form                                       form
	Action                                     string // where the add form posts
	Reasons                                    []option
	MayWrite                                   bool
	Done                                       string
}

// calendarRow is one absence or window.
type calendarRow struct{ Start, End, What, Note, Remove string }

var absenceReasonLabels = map[string]string{"vacation": "Vacation", "sickness": "Sickness", "training": "Training", "other": "Other"}

// calendarPast is how far back a page lists absences and windows: the
// recent past, then everything to come.
const calendarPast = 30 * 24 * time.Hour

var (
	attendanceScopes = resource{"attendance:read", "attendance:write"}
	// calendarDone are the words a page says after a removal.
	calendarDone = map[string]string{"absence-removed": "The absence is removed: the plan may give this technician work then again.",
		"window-removed": "The maintenance window is removed: the plan may use this bay then again."}
)

// calendarForm is the add form a failed write left, or a fresh one.
func calendarForm(failed *form) form {
	return formOr(failed, map[string]string{"start": "", "end": "", "reason": "", "note": ""})
}

// calendarSpan reads the add form's start and end in the location's zone.
func (d *desk) calendarSpan(f *form) (start, end time.Time) {
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"start", &start}, {"end", &end}} {
		t, ok := d.parseLocalTime(f.Values[p.name])
		switch {
		case !ok || t == nil:
			f.Errors[p.name] = "Enter a date and time."
		default:
			*p.t = t.Time
		}
	}
	return start, end
}

// absencesView lists a technician's absences with the add form.
func (a *App) absencesView(r *http.Request, d *desk, t workshop.Technician, failed *form) (*calendarView, error) {
	if !allows(d.si, attendanceScopes.read) {
		return nil, nil
	}
	list, err := a.store.Absences(r.Context(), store.CalendarFilter{Visibility: d.visibility(), Owner: t.ID,
		From: a.now().Add(-calendarPast).In(d.zone).Format(time.DateOnly)}, workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return nil, err
	}
	v := &calendarView{Heading: "Absences", WhatLabel: "Reason", AddLabel: "Add absence", Action: technicianPath(t.ID) + "/absences",
		Intro: "Planned time away. The plan gives " + t.Name + " no work then; the status stays as it is.",
		Empty: "No absences from the last 30 days on.", Form: calendarForm(failed), MayWrite: allows(d.si, attendanceScopes.write),
		Done: calendarDone[r.URL.Query().Get("done")]}
	for _, reason := range workshop.AbsenceReasons {
		v.Reasons = append(v.Reasons, option{Value: reason, Label: absenceReasonLabels[reason], Checked: reason == v.Form.Values["reason"]})
	}
	for _, ab := range list.Data {
		v.Rows = append(v.Rows, calendarRow{Start: d.when(ab.Start), End: d.when(ab.End), What: absenceReasonLabels[ab.Reason], Note: ab.Note,
			Remove: technicianPath(t.ID) + "/absences/" + ab.ID + "/remove"})
	}
	return v, nil
}

// windowsView lists a bay's maintenance windows with the add form.
func (a *App) windowsView(r *http.Request, d *desk, b workshop.Bay, failed *form) (*calendarView, error) {
	list, err := a.store.MaintenanceWindows(r.Context(), store.CalendarFilter{Visibility: d.visibility(), Owner: b.ID,
		From: a.now().Add(-calendarPast).In(d.zone).Format(time.DateOnly)}, workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return nil, err
	}
	v := &calendarView{Heading: "Maintenance windows", WhatLabel: "Reason", AddLabel: "Add maintenance window",
		Action: bayPath(b.ID) + "/maintenance-windows",
		Intro:  "Planned servicing. The plan keeps the bay free then; the bay's status (above) stays as it is until someone changes it.",
		Empty:  "No maintenance windows from the last 30 days on.", Form: calendarForm(failed), MayWrite: allows(d.si, baysScopes.write),
		Done: calendarDone[r.URL.Query().Get("done")]}
	for _, w := range list.Data {
		v.Rows = append(v.Rows, calendarRow{Start: d.when(w.Start), End: d.when(w.End), What: w.Reason,
			Remove: bayPath(b.ID) + "/maintenance-windows/" + w.ID + "/remove"})
	}
	return v, nil
}

// absenceTechnician reads the technician of an absence write: it needs
// reading technicians and writing attendance (an advisor's role), not
// writing technicians.
func (a *App) absenceTechnician(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, workshop.Technician, error) {
	return recordOf(a, w, r, si, resource{techniciansScopes.read, attendanceScopes.write}, func(v store.Visibility) (workshop.Technician, error) {
		return a.store.Technician(r.Context(), v, r.PathValue("techID"))
	}, func(t workshop.Technician) string { return t.LocationID })
}

func (a *App) addAbsence(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.absenceTechnician(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, "start", "end", "reason", "note")
	start, end := d.calendarSpan(&f)
	if len(f.Errors) == 0 {
		_, err = a.store.CreateAbsence(r.Context(), d.visibility(), workshop.Absence{TechID: t.ID, Start: start, End: end,
			Reason: f.Values["reason"], Note: f.Values["note"]})
	}
	return a.settle(w, r, err, &f, nil, technicianPath(t.ID)+"#calendar-heading", func(status int) error {
		return a.renderTechnician(w, r, d, t.ID, status, technicianForms{absence: &f})
	})
}

// removeAbsence asks before removing (GET) and removes (POST).
func (a *App) removeAbsence(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.absenceTechnician(w, r, si)
	if err != nil {
		return err
	}
	if !allows(si, attendanceScopes.write) {
		return refused(nil)
	}
	id, back := r.PathValue("absenceID"), technicianPath(t.ID)
	if r.Method == http.MethodPost {
		if err := a.store.DeleteAbsence(r.Context(), d.visibility(), id); err != nil {
			return err
		}
		http.Redirect(w, r, back+"?done=absence-removed#calendar-heading", http.StatusSeeOther)
		return nil
	}
	list, err := a.store.Absences(r.Context(), store.CalendarFilter{Visibility: d.visibility(), Owner: t.ID}, workshop.PageRequest{Limit: 200})
	if err != nil {
		return err
	}
	for _, ab := range list.Data {
		if ab.ID == id {
			return a.render(w, r, http.StatusOK, "developer_confirm", view{Header: d.header, Data: confirmView{
				Title: "Remove " + t.Name + "'s absence?", Action: r.URL.Path, Button: "Remove the absence", Back: back,
				Text: absenceReasonLabels[ab.Reason] + " from " + d.when(ab.Start) + " until " + d.when(ab.End) +
					". Once removed, the plan may give " + t.Name + " work then."}})
		}
	}
	return workshop.NotFound("absence")
}

func (a *App) addWindow(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, "start", "end", "reason")
	start, end := d.calendarSpan(&f)
	if len(f.Errors) == 0 {
		_, err = a.store.CreateMaintenanceWindow(r.Context(), d.visibility(), workshop.MaintenanceWindow{BayID: b.ID, Start: start, End: end,
			Reason: f.Values["reason"]})
	}
	return a.settle(w, r, err, &f, nil, bayPath(b.ID)+"#calendar-heading", func(status int) error {
		return a.renderBay(w, r, d, b.ID, status, bayForms{window: &f})
	})
}

// removeWindow asks before removing (GET) and removes (POST).
func (a *App) removeWindow(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	if !allows(si, baysScopes.write) {
		return refused(nil)
	}
	id, back := r.PathValue("windowID"), bayPath(b.ID)
	if r.Method == http.MethodPost {
		if err := a.store.DeleteMaintenanceWindow(r.Context(), d.visibility(), b.ID, id); err != nil {
			return err
		}
		http.Redirect(w, r, back+"?done=window-removed#calendar-heading", http.StatusSeeOther)
		return nil
	}
	list, err := a.store.MaintenanceWindows(r.Context(), store.CalendarFilter{Visibility: d.visibility(), Owner: b.ID}, workshop.PageRequest{Limit: 200})
	if err != nil {
		return err
	}
	for _, mw := range list.Data {
		if mw.ID == id {
			return a.render(w, r, http.StatusOK, "developer_confirm", view{Header: d.header, Data: confirmView{
				Title: "Remove the maintenance window of " + b.Name + "?", Action: r.URL.Path, Button: "Remove the window", Back: back,
				Text: "From " + d.when(mw.Start) + " until " + d.when(mw.End) + ". Once removed, the plan may use " + b.Name + " then."}})
		}
	}
	return workshop.NotFound("maintenance window")
}
