package workshop

import (
	"cmp"
	"slices"
	"time"
)

// Timesheet periods: one local date, or an ISO week (Monday to Sunday).
const (
	PeriodDay  = "day"
	PeriodWeek = "week"
)

// Period is the local dates a timesheet covers, From to To inclusive,
// kept as midnight UTC so that date arithmetic never meets a zone's
// daylight-saving change.
type Period struct {
	Kind     string
	From, To time.Time
}

// ParsePeriod reads a timesheet's period: kind day or week ("" is day) and
// a date YYYY-MM-DD in the period ("" is today). A week is the ISO week
// holding the date.
func ParsePeriod(kind, date string, today string) (Period, error) {
	var v Validation
	if kind == "" {
		kind = PeriodDay
	}
	if kind != PeriodDay && kind != PeriodWeek {
		v.Add("period", "The period is day or week.")
	}
	if date == "" {
		date = today
	}
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		v.Add("date", "Enter the date as YYYY-MM-DD.")
	}
	if err := v.Err(); err != nil {
		return Period{}, err
	}
	return periodOf(kind, d), nil
}

func periodOf(kind string, d time.Time) Period {
	if kind == PeriodDay {
		return Period{Kind: kind, From: d, To: d}
	}
	monday := d.AddDate(0, 0, -(int(d.Weekday())+6)%7)
	return Period{Kind: kind, From: monday, To: monday.AddDate(0, 0, 6)}
}

// Dates are the period's local dates, YYYY-MM-DD, in order.
func (p Period) Dates() []string {
	var out []string
	for d := p.From; !d.After(p.To); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(time.DateOnly))
	}
	return out
}

// FromDate and ToDate are the period's first and last local dates.
func (p Period) FromDate() string { return p.From.Format(time.DateOnly) }
func (p Period) ToDate() string   { return p.To.Format(time.DateOnly) }

// Previous and Next are the periods of the same kind before and after.
func (p Period) Previous() Period { return periodOf(p.Kind, p.From.AddDate(0, 0, -1)) }
func (p Period) Next() Period     { return periodOf(p.Kind, p.To.AddDate(0, 0, 1)) }

// WorkedMinutes is the whole minutes between a record's clock-in and its
// clock-out, or now while it is open (Open). The instants are subtracted,
// never the wall clocks, so a shift over a daylight-saving change counts
// the time really worked. A clock-in after now (a clock set ahead) counts 0.
func WorkedMinutes(a Attendance, now time.Time) (minutes int, open bool) {
	end := now
	if a.ClockOut != nil {
		end = a.ClockOut.Time
	}
	worked := end.Sub(a.ClockIn.Time)
	if worked < 0 {
		worked = 0
	}
	return int(worked / time.Minute), a.ClockOut == nil
}

// TimesheetEntry is one record of a timesheet with its minutes.
type TimesheetEntry struct {
	Attendance
	Minutes int
	Open    bool // counted up to now
}

// TechnicianTimesheet is one technician's records in a period, with the
// minutes of each date of the period (DayMinutes, in Dates order) and in
// all.
type TechnicianTimesheet struct {
	TechID     string
	Entries    []TimesheetEntry
	DayMinutes []int
	Minutes    int
}

// Timesheet is the records of a period, by technician, with the minutes
// of each date and of the period for the location. A record belongs to
// the work date it began on (a shift over midnight counts to its first
// day), as the API's attendance filter has it. Totals are sums of the
// records' whole minutes, so every column adds up.
type Timesheet struct {
	Period      Period
	Dates       []string
	Technicians []TechnicianTimesheet
	DayMinutes  []int
	Minutes     int
	Open        bool // a record is still open: its minutes run to now
}

// BuildTimesheet makes the timesheet of the records in period at now.
// techIDs are the technicians to show in order, each even without a
// record; a record of another technician (one since removed) follows
// them. Records outside the period are left out; each technician's are
// in clock-in order.
func BuildTimesheet(p Period, techIDs []string, records []Attendance, now time.Time) Timesheet {
	ts := Timesheet{Period: p, Dates: p.Dates()}
	ts.DayMinutes = make([]int, len(ts.Dates))
	index := map[string]int{}
	add := func(id string) int {
		if i, ok := index[id]; ok {
			return i
		}
		index[id] = len(ts.Technicians)
		ts.Technicians = append(ts.Technicians, TechnicianTimesheet{TechID: id, DayMinutes: make([]int, len(ts.Dates))})
		return index[id]
	}
	for _, id := range techIDs {
		add(id)
	}
	records = slices.Clone(records)
	slices.SortFunc(records, func(a, b Attendance) int {
		return cmp.Or(a.ClockIn.Compare(b.ClockIn.Time), cmp.Compare(a.ID, b.ID))
	})
	for _, a := range records {
		day := slices.Index(ts.Dates, a.WorkDate)
		if day < 0 {
			continue
		}
		minutes, open := WorkedMinutes(a, now)
		i := add(a.TechID) // before taking the address: add may grow the slice
		tech := &ts.Technicians[i]
		tech.Entries = append(tech.Entries, TimesheetEntry{Attendance: a, Minutes: minutes, Open: open})
		tech.DayMinutes[day] += minutes
		tech.Minutes += minutes
		ts.DayMinutes[day] += minutes
		ts.Minutes += minutes
		ts.Open = ts.Open || open
	}
	return ts
}
