package webapp

import (
	"net/http"
	"net/url"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func attendancePath(id string) string { return "/attendance/" + id }

// correctionRow is one correction in a record's history.
type correctionRow struct{ When, Who, Before, After string }

// recordView is an attendance record's page.
type recordView struct {
	Location      workshop.Location
	ID, TechName  string
	Date, In, Out string
	Worked        string
	Open          bool
	Timesheet     string // the record's day on the timesheet
	History       []correctionRow
	MayCorrect    bool
	Confirmation  string
}

// recordOf reads the path's record the user's organisation sees and the
// desk of its location, refusing a user without scope.
func (a *App) recordOf(w http.ResponseWriter, r *http.Request, si *store.SignedIn, scope workshop.Scope) (*desk, workshop.Attendance, error) {
	rec, err := a.store.AttendanceRecord(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, r.PathValue("attendanceID"))
	if err != nil {
		return nil, rec, err
	}
	d, err := a.deskOf(r, si, rec.LocationID)
	if err != nil {
		return nil, rec, err
	}
	if !allows(si, scope) {
		return nil, rec, refused(d.header)
	}
	return d, rec, parseForm(w, r)
}

func (a *App) attendancePage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, rec, err := a.recordOf(w, r, si, scopeAttendanceRead)
	if err != nil {
		return err
	}
	confirm := ""
	if r.URL.Query().Get("corrected") != "" {
		confirm = "The record is corrected."
	}
	return a.renderRecord(w, r, d, rec, http.StatusOK, d.correctionForm(rec, nil), confirm)
}

// correctionForm is the correction form of the record as it is, with the
// errors of a refused one (nil: none).
func (d *desk) correctionForm(rec workshop.Attendance, errs map[string]string) form {
	if errs == nil {
		errs = map[string]string{}
	}
	return form{Values: map[string]string{"clockIn": d.localInput(&rec.ClockIn), "clockOut": d.localInput(rec.ClockOut),
		"updatedAt": versionOf(rec.UpdatedAt)}, Errors: errs}
}

// renderRecord writes a record's page with its history and the
// correction form f.
func (a *App) renderRecord(w http.ResponseWriter, r *http.Request, d *desk, rec workshop.Attendance, status int, f form, confirm string) error {
	ctx := r.Context()
	tech, err := a.store.Technician(ctx, d.visibility(), rec.TechID)
	name := tech.Name
	switch {
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		name = "Removed technician " + rec.TechID
	case err != nil:
		return err
	}
	history, err := a.store.AttendanceCorrections(ctx, d.visibility(), rec.ID)
	if err != nil {
		return err
	}
	minutes, open := workshop.WorkedMinutes(rec, a.now())
	entry := d.sheetEntryOf(workshop.TimesheetEntry{Attendance: rec, Minutes: minutes, Open: open})
	v := recordView{Location: d.loc, ID: rec.ID, TechName: name, Date: workDateText(rec.WorkDate, sheetDateLayout), In: entry.In, Out: entry.Out, Worked: entry.Worked, Open: open,
		Timesheet:  timesheetsPath(d.loc.ID) + "?" + url.Values{"period": {workshop.PeriodDay}, "date": {rec.WorkDate}}.Encode(),
		MayCorrect: allows(d.si, scopeAttendanceWrite), Confirmation: confirm}
	for i := len(history) - 1; i >= 0; i-- { // newest first
		h := history[i]
		v.History = append(v.History, correctionRow{When: d.when(h.At.Time()), Who: h.Email,
			Before: d.spanText(h.OldIn, h.OldOut), After: d.spanText(h.NewIn, h.NewOut)})
	}
	return a.render(w, r, status, "attendance", view{Header: d.header, Form: f, Data: v})
}

// spanText is a record's times as a correction shows them.
func (d *desk) spanText(in workshop.OffsetTime, out *workshop.OffsetTime) string {
	s := d.when(in.Time) + " – "
	if out == nil {
		return s + "open"
	}
	return s + d.when(out.Time)
}

// correctAttendance corrects a record's clock-in and clock-out against the
// version the form was made from: a stale form shows the record as it is
// now, a refused time its message beside the field.
func (a *App) correctAttendance(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, rec, err := a.recordOf(w, r, si, scopeAttendanceWrite)
	if err != nil {
		return err
	}
	f := formOf(r, "clockIn", "clockOut", "updatedAt")
	in, inErr := d.correctionTime(f.Values["clockIn"], &rec.ClockIn)
	out, outErr := d.correctionTime(f.Values["clockOut"], rec.ClockOut)
	switch {
	case inErr != "":
		f.Errors["clockIn"] = inErr
	case in == nil:
		f.Errors["clockIn"] = "Enter the clock-in as a date and time."
	}
	if outErr != "" {
		f.Errors["clockOut"] = outErr
	}
	if len(f.Errors) > 0 {
		return a.renderRecord(w, r, d, rec, http.StatusUnprocessableEntity, f, "")
	}
	_, err = a.store.CorrectAttendance(r.Context(), d.visibility(), rec.ID, store.AttendanceEdit{By: si.Member.User,
		UpdatedAt: parseVersion(f.Values["updatedAt"]), ClockIn: *in, ClockOut: out})
	if err == nil {
		http.Redirect(w, r, attendancePath(rec.ID)+"?corrected=1", http.StatusSeeOther)
		return nil
	}
	status, known := f.refusal(err, nil)
	if !known {
		return err
	}
	if status == http.StatusConflict { // someone else changed it: the form shows the record as it is now
		cur, rerr := a.store.AttendanceRecord(r.Context(), d.visibility(), rec.ID)
		if rerr != nil {
			return rerr
		}
		rec, f = cur, d.correctionForm(cur, f.Errors)
	}
	return a.renderRecord(w, r, d, rec, status, f, "")
}

// correctionTime reads a correction's local time (datetime-local) in the
// location's zone; "" is none. The time the form showed for current
// stands for current itself, so an untouched field keeps its instant even
// where the wall clock is ambiguous (the hour the clocks go back); a new
// time in that hour is read, as Go reads it, as its second occurrence
// (standard time). A time the clocks skip (the hour they go forward) does
// not exist: refused.
func (d *desk) correctionTime(s string, current *workshop.OffsetTime) (*workshop.OffsetTime, string) {
	if current != nil && s == d.localInput(current) {
		return current, ""
	}
	t, ok := d.parseLocalTime(s)
	switch {
	case !ok:
		return nil, "Enter a date and time."
	case t != nil && t.Format(inputTimeLayout) != s:
		return nil, "The clocks skip this time here (daylight saving): choose a time outside the skipped hour."
	}
	return t, ""
}
