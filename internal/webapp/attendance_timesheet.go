package webapp

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// sheet is a timesheet as asked for: the location's desk, the query's
// form, the technicians to choose from and the timesheet made of them.
type sheet struct {
	d     *desk
	form  form
	techs []workshop.Technician
	ts    workshop.Timesheet
	names map[string]string // technician names by id
	now   time.Time         // open records count up to it
}

func timesheetsPath(locationID string) string { return "/locations/" + locationID + "/timesheets" }

// timesheetOf reads the timesheet of the request's query (period day or
// week, date, techId) in the location's zone, or the error that stops it
// (refused, not found, or the query is wrong: the page at 400 with the
// message beside the field).
func (a *App) timesheetOf(r *http.Request, si *store.SignedIn) (*sheet, error) {
	d, err := a.deskOf(r, si, r.PathValue("locationID"))
	if err != nil {
		return nil, err
	}
	if !allows(si, scopeAttendanceRead) {
		return nil, refused(d.header)
	}
	ctx, q := r.Context(), r.URL.Query()
	s := &sheet{d: d, names: map[string]string{},
		form: form{Values: map[string]string{"period": q.Get("period"), "date": q.Get("date"), "techId": q.Get("techId")}, Errors: map[string]string{}}}
	if s.techs, err = locationTechnicians(ctx, a.store, d.visibility()); err != nil {
		return nil, err
	}
	s.now = a.now()
	p, err := workshop.ParsePeriod(s.form.Values["period"], s.form.Values["date"], s.now.In(d.zone).Format(time.DateOnly))
	s.form.invalid(err)
	techID := s.form.Values["techId"]
	var shown []string
	for _, t := range s.techs {
		s.names[t.ID] = t.Name
		if techID == "" || t.ID == techID {
			shown = append(shown, t.ID)
		}
	}
	if techID != "" && len(shown) == 0 {
		s.form.Errors["techId"] = "Choose a technician of this location."
	}
	if len(s.form.Errors) > 0 {
		return nil, &pageError{status: http.StatusBadRequest, page: "timesheets", v: view{Header: d.header, Form: s.form, Data: s.viewOf()}}
	}
	s.form.Values["period"], s.form.Values["date"] = p.Kind, p.FromDate()
	records, err := workshop.EveryPage(func(pr workshop.PageRequest) (workshop.Page[workshop.Attendance], error) {
		return a.store.AttendanceRecords(ctx, store.AttendanceFilter{Visibility: d.visibility(), TechID: techID,
			From: p.FromDate(), To: p.ToDate()}, pr)
	})
	if err != nil {
		return nil, err
	}
	s.ts = workshop.BuildTimesheet(p, shown, records, s.now)
	return s, nil
}

// name is a technician's name on the timesheet, also of one since removed.
func (s *sheet) name(techID string) string {
	if n, ok := s.names[techID]; ok {
		return n
	}
	return "Removed technician " + techID
}

// query is the timesheet's query for period p, with the technician chosen.
func (s *sheet) query(p workshop.Period) string {
	q := url.Values{"period": {p.Kind}, "date": {p.FromDate()}}
	if id := s.form.Values["techId"]; id != "" {
		q.Set("techId", id)
	}
	return q.Encode()
}

// sheetEntry is one record on the timesheet page.
type sheetEntry struct {
	ID, Date, In, Out, Worked string
	Open                      bool
}

// sheetRow is one technician on the timesheet page.
type sheetRow struct {
	Name    string
	Days    []string // hours:minutes of each date
	Total   string
	Entries []sheetEntry
}

// sheetView is the timesheet page.
type sheetView struct {
	Location               workshop.Location
	Title                  string
	Periods, Techs         []option
	Shown                  bool // a timesheet is shown (the query was right)
	Previous, Next, CSV    string
	Day, Week              string
	Dates                  []string
	Rows                   []sheetRow
	DayTotals              []string
	Total                  string
	Records, Open          bool // a record is shown; one is open
	Now                    string
	MayCorrect, ManyPeople bool
}

const (
	sheetDateLayout = "Mon 2 Jan 2006"
	sheetDayLayout  = "Mon 2 Jan"
)

func (s *sheet) viewOf() sheetView {
	d, ts := s.d, s.ts
	v := sheetView{Location: d.loc, MayCorrect: allows(d.si, scopeAttendanceWrite)}
	for _, p := range []struct{ value, label string }{{workshop.PeriodDay, "Day"}, {workshop.PeriodWeek, "Week (Monday to Sunday)"}} {
		v.Periods = append(v.Periods, option{Value: p.value, Label: p.label, Checked: s.form.Values["period"] == p.value})
	}
	for _, t := range s.techs {
		v.Techs = append(v.Techs, option{Value: t.ID, Label: t.Name, Checked: s.form.Values["techId"] == t.ID})
	}
	if ts.Dates == nil {
		v.Title = "Timesheet"
		return v
	}
	p := ts.Period
	v.Shown = true
	base := timesheetsPath(d.loc.ID)
	v.Previous, v.Next = base+"?"+s.query(p.Previous()), base+"?"+s.query(p.Next())
	v.CSV = base + ".csv?" + s.query(p)
	v.Day = base + "?" + s.query(workshop.Period{Kind: workshop.PeriodDay, From: p.From})
	v.Week = base + "?" + s.query(workshop.Period{Kind: workshop.PeriodWeek, From: p.From})
	if p.Kind == workshop.PeriodDay {
		v.Title = "Timesheet of " + p.From.Format(sheetDateLayout)
	} else {
		_, week := p.From.ISOWeek()
		v.Title = fmt.Sprintf("Timesheet of week %d, %s – %s", week, p.From.Format(sheetDayLayout), p.To.Format(sheetDateLayout))
	}
	for _, date := range ts.Dates {
		v.Dates = append(v.Dates, workDateText(date, sheetDayLayout))
	}
	for _, tech := range ts.Technicians {
		row := sheetRow{Name: s.name(tech.TechID), Total: durationText(tech.Minutes)}
		for _, m := range tech.DayMinutes {
			row.Days = append(row.Days, durationText(m))
		}
		for _, e := range tech.Entries {
			row.Entries = append(row.Entries, d.sheetEntryOf(e))
		}
		v.Records = v.Records || len(row.Entries) > 0
		v.Rows = append(v.Rows, row)
	}
	for _, m := range ts.DayMinutes {
		v.DayTotals = append(v.DayTotals, durationText(m))
	}
	v.Total, v.Open, v.ManyPeople = durationText(ts.Minutes), ts.Open, len(ts.Technicians) > 1
	v.Now = d.when(s.now)
	return v
}

// sheetEntryOf shows a record: its times in the location's zone, with the
// date when it is not the work date, and with the zone's abbreviation
// when a daylight-saving change falls in between (so 00:30 CET to 04:30
// CEST reads as the 3 hours it was).
func (d *desk) sheetEntryOf(e workshop.TimesheetEntry) sheetEntry {
	in := e.ClockIn.In(d.zone)
	out := in
	if e.ClockOut != nil {
		out = e.ClockOut.In(d.zone)
	}
	_, inOffset := in.Zone()
	_, outOffset := out.Zone()
	show := func(t time.Time) string {
		s := t.Format(clockTimeLayout)
		if t.Format(time.DateOnly) != e.WorkDate {
			s = t.Format(sheetDayLayout) + " " + s
		}
		if inOffset != outOffset {
			s += " " + t.Format("MST")
		}
		return s
	}
	v := sheetEntry{ID: e.ID, Date: workDateText(e.WorkDate, sheetDayLayout), In: show(in), Worked: durationText(e.Minutes), Open: e.Open}
	if e.ClockOut != nil {
		v.Out = show(out)
	}
	return v
}

// workDateText shows a local date (YYYY-MM-DD, as stored) in layout.
func workDateText(date, layout string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format(layout)
}

// timesheetPage is a location's timesheet of a day or a week.
func (a *App) timesheetPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	s, err := a.timesheetOf(r, si)
	if err != nil {
		return err
	}
	return a.render(w, r, http.StatusOK, "timesheets", view{Header: s.d.header, Form: s.form, Data: s.viewOf()})
}

// timesheetCSV is the timesheet as a CSV download: a header row, one row
// per record (technician, date, clock in and out with their offset,
// minutes), then the totals of each technician, of each date and of the
// location.
func (a *App) timesheetCSV(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	s, err := a.timesheetOf(r, si)
	if err != nil {
		return err
	}
	var b strings.Builder
	c := csv.NewWriter(&b)
	rows := [][]string{{"technician", "date", "clock in", "clock out", "minutes"}}
	for _, tech := range s.ts.Technicians {
		for _, e := range tech.Entries {
			out := ""
			if e.ClockOut != nil {
				out = e.ClockOut.In(s.d.zone).Format(time.RFC3339)
			}
			rows = append(rows, []string{s.name(tech.TechID), e.WorkDate, e.ClockIn.In(s.d.zone).Format(time.RFC3339), out, strconv.Itoa(e.Minutes)})
		}
	}
	for _, tech := range s.ts.Technicians {
		rows = append(rows, []string{s.name(tech.TechID), "total", "", "", strconv.Itoa(tech.Minutes)})
	}
	if len(s.ts.Dates) > 1 {
		for i, date := range s.ts.Dates {
			rows = append(rows, []string{"all technicians", date, "", "", strconv.Itoa(s.ts.DayMinutes[i])})
		}
	}
	rows = append(rows, []string{"all technicians", "total", "", "", strconv.Itoa(s.ts.Minutes)})
	for _, row := range rows {
		for i := range row {
			row[i] = csvSafe(row[i])
		}
		_ = c.Write(row) // a strings.Builder does not fail; c.Error reports the rest
	}
	c.Flush()
	if err := c.Error(); err != nil {
		return err
	}
	p := s.ts.Period
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="timesheet-%s-%s.csv"`, p.FromDate(), p.ToDate()))
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(b.String()))
	return nil
}

// csvSafe keeps a spreadsheet from reading a cell as a formula (CSV
// injection through a technician's name): a value beginning with = + - @
// (or a tab or carriage return, which some read the same way) gets a
// leading apostrophe.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
