package webapp

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

const (
	scopeAttendanceRead  = workshop.Scope("attendance:read")
	scopeAttendanceWrite = workshop.Scope("attendance:write")
)

// attendanceRoutes serves the time clock and the timesheets (issue 20, part 2).
func (a *App) attendanceRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/clock", a.member(a.clockPage))
	mux.Handle("POST /locations/{locationID}/clock/in", a.member(a.clockIn))
	mux.Handle("POST /locations/{locationID}/clock/out", a.member(a.clockOut))
	mux.Handle("GET /locations/{locationID}/timesheets", a.member(a.timesheetPage))
	mux.Handle("GET /locations/{locationID}/timesheets.csv", a.member(a.timesheetCSV))
	mux.Handle("GET /attendance/{attendanceID}", a.member(a.attendancePage))
	mux.Handle("POST /attendance/{attendanceID}/correct", a.member(a.correctAttendance))
}

func clockPath(locationID string) string { return "/locations/" + locationID + "/clock" }

// clockTech is a technician on the time clock.
type clockTech struct {
	ID, Name string
	In       bool
	Since    string // the clock-in of the open record, HH:MM local (with the day when not today)
	Today    string // the user's own: hours:minutes worked today so far
}

// clockView is the time clock of a location.
type clockView struct {
	Location workshop.Location
	// Self is the technician the user works as, when at this location;
	// Elsewhere their location when it is another one.
	Self      *clockTech
	Elsewhere *workshop.Location
	// NoTechnician: the user clocks only themself but works as no technician.
	NoTechnician bool
	Everyone     []clockTech // attendance:write: every technician of the location
	Confirmation string
	Error        string
	// Ask: clocking the technician out waits for a yes, as steps of
	// theirs are in progress (named).
	Ask *clockAsk
}

// clockAsk asks before a technician with steps in progress clocks out.
type clockAsk struct {
	TechID string
	Steps  []string // "Brakes (RO-2026-0004)"
}

// clockPage is the time clock: one big button for the technician the user
// works as, and every technician with their state and button for a role
// that clocks anyone.
func (a *App) clockPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.deskOf(r, si, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	return a.renderClock(w, r, d, http.StatusOK, q.Get("techId"), q.Get("done"), "", nil)
}

// renderClock writes the time clock as it is now, confirming that
// techID was clocked done ("in" or "out") when that is still so, or
// with a refusal.
func (a *App) renderClock(w http.ResponseWriter, r *http.Request, d *desk, status int, techID, done, refusal string, ask *clockAsk) error {
	ctx := r.Context()
	techs, err := locationTechnicians(ctx, a.store, d.visibility())
	if err != nil {
		return err
	}
	open, err := a.store.OpenAttendance(ctx, d.visibility())
	if err != nil {
		return err
	}
	now := a.now().In(d.zone)
	since := map[string]string{}
	for _, rec := range open {
		in := rec.ClockIn.In(d.zone)
		since[rec.TechID] = in.Format(clockTimeLayout)
		if in.Format(time.DateOnly) != now.Format(time.DateOnly) { // in since an earlier day: say which
			since[rec.TechID] = in.Format(dateTimeLayout)
		}
	}
	v := clockView{Location: d.loc, Error: refusal, Ask: ask}
	all := allows(d.si, scopeAttendanceWrite)
	self := d.si.Member.TechnicianID
	for _, t := range techs {
		_, in := since[t.ID]
		ct := clockTech{ID: t.ID, Name: t.Name, In: in, Since: since[t.ID]}
		if t.ID == self {
			v.Self = &ct
		}
		if all {
			v.Everyone = append(v.Everyone, ct)
		}
		if t.ID == techID { // confirmed while it still holds: a reload later confirms nothing stale
			switch {
			case done == "in" && in:
				v.Confirmation = t.Name + " clocked in at " + ct.Since + "."
			case done == "out" && !in:
				v.Confirmation = t.Name + " clocked out."
			}
		}
	}
	if v.Self != nil {
		if v.Self.Today, err = a.workedToday(r, d, self, now); err != nil {
			return err
		}
	}
	if self != "" && v.Self == nil {
		t, err := a.store.Technician(ctx, store.Visibility{OrgID: d.si.Member.Org.ID}, self)
		if err != nil {
			return err
		}
		for _, l := range d.header.Locations {
			if l.ID == t.LocationID {
				v.Elsewhere = &l
			}
		}
	}
	v.NoTechnician = self == "" && !all
	return a.render(w, r, status, "clock", view{Header: d.header, Data: v})
}

// workedToday is the hours:minutes the technician worked on today's work
// date so far, as their timesheet of today counts them.
func (a *App) workedToday(r *http.Request, d *desk, techID string, now time.Time) (string, error) {
	today := now.Format(time.DateOnly)
	records, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Attendance], error) {
		return a.store.AttendanceRecords(r.Context(), store.AttendanceFilter{Visibility: d.visibility(), TechID: techID, From: today, To: today}, p)
	})
	if err != nil {
		return "", err
	}
	period, err := workshop.ParsePeriod(workshop.PeriodDay, today, today)
	if err != nil {
		return "", err
	}
	return durationText(workshop.BuildTimesheet(period, []string{techID}, records, now).Minutes), nil
}

func (a *App) clockIn(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.clock(w, r, si, "in", a.store.ClockIn)
}

func (a *App) clockOut(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.clock(w, r, si, "out", a.store.ClockOut)
}

// clock clocks the form's technician in or out now through the store's
// clock-in or clock-out, as the API does (the same rules and events), and
// comes back to the time clock, which confirms it.
func (a *App) clock(w http.ResponseWriter, r *http.Request, si *store.SignedIn, done string,
	op func(ctx context.Context, v store.Visibility, techID string, at time.Time, opts ...store.WriteOption) (workshop.Attendance, error)) error {
	d, err := a.deskOf(r, si, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	techID := r.PostFormValue("techId")
	if !actorOf(si).MayClock(techID) {
		return refused(d.header)
	}
	if done == "out" && r.PostFormValue("confirm") != "yes" {
		ask, err := a.clockOutAsk(r.Context(), techID)
		if err != nil {
			return err
		}
		if ask != nil {
			pushAddress(w, r, clockPath(d.loc.ID))
			return a.renderClock(w, r, d, http.StatusOK, "", "", "", ask)
		}
	}
	if _, err := op(r.Context(), d.visibility(), techID, a.now()); err != nil {
		f := form{Values: map[string]string{}, Errors: map[string]string{}}
		status, known := f.refusal(err, nil)
		if !known {
			return err
		}
		switch workshop.ErrorCode(err) { // the store's details name the technician
		case workshop.CodeAlreadyClockedIn, workshop.CodeNotClockedIn:
			status = http.StatusConflict
		case workshop.CodeNotFound:
			f.Errors[""] = "There is no such technician at this location."
		}
		return a.renderClock(w, r, d, status, "", "", f.Errors[""], nil)
	}
	http.Redirect(w, r, clockPath(d.loc.ID)+"?"+url.Values{"techId": {techID}, "done": {done}}.Encode(), http.StatusSeeOther)
	return nil
}

// clockOutAsk is the question to ask before the technician clocks out
// with steps in progress; nil when they have none.
func (a *App) clockOutAsk(ctx context.Context, techID string) (*clockAsk, error) {
	steps, err := a.store.TechnicianSteps(ctx, techID, store.StepPlace{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, as := range steps {
		if as.Step.Status == workshop.StepInProgress {
			names = append(names, as.Step.Label+" ("+as.JobNumber+")")
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	return &clockAsk{TechID: techID, Steps: names}, nil
}

// locationTechnicians is every technician of what v sees, by (createdAt, id).
func locationTechnicians(ctx context.Context, st *store.Store, v store.Visibility) ([]workshop.Technician, error) {
	return workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Technician], error) {
		return st.Technicians(ctx, v, p)
	})
}
