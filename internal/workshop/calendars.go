package workshop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A shop's calendars (contract section 4): when a technician works
// (WeeklyHours), when they are away (Absence) and when a bay is serviced
// (MaintenanceWindow). The planner reads them as non-working time; here
// they are records and their rules.

// Id prefixes of absences and bay maintenance windows.
const (
	PrefixAbsence           = "abs_"
	PrefixMaintenanceWindow = "bmw_"
)

// WeeklyHours is one weekly period a technician works, local times HH:MM
// of the location. A technician's WorkingHours are nil (every working hour
// of the location) or a list of these (several a day allowed); the
// technician works where they overlap the location's working time. An
// empty, non-nil list is allowed and means no working time at all (a
// technician kept on the books who is never planned).
type WeeklyHours struct {
	Day   string `json:"day"` // mon..sun
	Start string `json:"start"`
	End   string `json:"end"`
}

// MaxWorkingHours bounds a technician's weekly list (the API's arrays).
const MaxWorkingHours = MaxListEntries

// CheckWorkingHours checks a technician's weekly hours: each a weekday
// (mon..sun), start and end as HH:MM, start before end (24:00 is the end
// of the day); field workingHours.
func CheckWorkingHours(hours []WeeklyHours) error {
	if len(hours) > MaxWorkingHours {
		return Invalid("workingHours", "At most %d periods, please (this has %d).", MaxWorkingHours, len(hours))
	}
	for _, h := range hours {
		if !slices.Contains(Weekdays, h.Day) {
			return Invalid("workingHours", "%q is not a weekday: use mon, tue, wed, thu, fri, sat or sun.", h.Day)
		}
		from, okf := clockMinutes(h.Start)
		to, okt := clockMinutes(h.End)
		if !okf || !okt || len(h.Start) != 5 || len(h.End) != 5 || from >= to {
			return Invalid("workingHours", "%s: give each period as HH:MM to HH:MM, start first (%q to %q is not).", DayName(h.Day), h.Start, h.End)
		}
	}
	return nil
}

// ParseWorkingHours reads working hours as JSON: null (nil, the location's
// working time) or a list [{"day","start","end"}], checked.
func ParseWorkingHours(s string) ([]WeeklyHours, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	hours := []WeeklyHours{}
	if err := dec.Decode(&hours); err != nil || dec.More() {
		return nil, Invalid("workingHours", `Working hours are null or a list such as [{"day":"mon","start":"08:00","end":"14:00"}].`)
	}
	return NormalWorkingHours(hours), CheckWorkingHours(hours)
}

// NormalWorkingHours orders a weekly list by day (Monday first) and start;
// nil stays nil.
func NormalWorkingHours(hours []WeeklyHours) []WeeklyHours {
	if hours == nil {
		return nil
	}
	out := slices.Clone(hours)
	slices.SortStableFunc(out, func(a, b WeeklyHours) int {
		if d := slices.Index(Weekdays, a.Day) - slices.Index(Weekdays, b.Day); d != 0 {
			return d
		}
		return strings.Compare(a.Start, b.Start)
	})
	return out
}

// FormatWorkingHours is the weekly list as people write it (and
// ParseWorkingHoursText reads it), days in a row with the same hours as a
// range: "mon-fri 08:00-13:00, sat 09:00-12:00"; "" for nil.
func FormatWorkingHours(hours []WeeklyHours) string {
	var parts []string
	for i := 0; i < len(hours); {
		h, j := hours[i], i+1
		for j < len(hours) && hours[j].Start == h.Start && hours[j].End == h.End &&
			slices.Index(Weekdays, hours[j].Day) == slices.Index(Weekdays, hours[j-1].Day)+1 {
			j++
		}
		days := h.Day
		if j-i > 1 {
			days += "-" + hours[j-1].Day
		}
		parts = append(parts, days+" "+h.Start+"-"+h.End)
		i = j
	}
	return strings.Join(parts, ", ")
}

// ParseWorkingHoursText reads the application's form of working hours:
// "" (the location's time), "none" (no working time) or periods as
// "mon 08:00-14:00, tue-fri 08:00-12:00" (a day range allowed), separated
// by commas, semicolons or new lines.
func ParseWorkingHoursText(s string) ([]WeeklyHours, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "":
		return nil, nil
	case "none":
		return []WeeklyHours{}, nil
	}
	hours := []WeeklyHours{}
	bad := Invalid("workingHours", `Write each period as "mon 08:00-14:00" (or "mon-fri 08:00-12:00"), separated by commas; leave empty for the location's hours.`)
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		days, span, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			return nil, bad
		}
		start, end, ok := strings.Cut(strings.TrimSpace(span), "-")
		if !ok {
			return nil, bad
		}
		list, err := dayRange(strings.ToLower(days))
		if err != nil {
			return nil, bad
		}
		for _, d := range list {
			hours = append(hours, WeeklyHours{Day: d, Start: strings.TrimSpace(start), End: strings.TrimSpace(end)})
		}
	}
	if len(hours) == 0 {
		return nil, bad
	}
	return NormalWorkingHours(hours), CheckWorkingHours(hours)
}

// dayRange reads "mon" or "mon-fri" as its weekdays.
func dayRange(s string) ([]string, error) {
	from, to, isRange := strings.Cut(s, "-")
	i, j := slices.Index(Weekdays, from), slices.Index(Weekdays, from)
	if isRange {
		j = slices.Index(Weekdays, to)
	}
	if i < 0 || j < i {
		return nil, fmt.Errorf("%q is not a day or a range of days", s)
	}
	return Weekdays[i : j+1], nil
}

// Absence is planned time away of a technician (vacation, sickness,
// training): never changed, only deleted and made again.
type Absence struct {
	ID, TechID, LocationID string
	OrgID                  string
	Start, End             time.Time // with the offset they were sent with
	Reason, Note           string
	CreatedAt              time.Time
}

// AbsenceReasons are the reasons an absence may give.
var AbsenceReasons = []string{"vacation", "sickness", "training", "other"}

// MaintenanceWindow is a planned time a bay is serviced: the plan keeps the
// bay free then; the bay's live status does not change.
type MaintenanceWindow struct {
	ID, BayID, LocationID string
	OrgID                 string
	Start, End            time.Time // with the offset they were sent with
	Reason                string
	CreatedAt             time.Time
}

// MaxCalendarSpan is the longest an absence or a maintenance window lasts.
const MaxCalendarSpan = 366 * 24 * time.Hour

// MaxNoteLength bounds an absence's note and a window's reason.
const MaxNoteLength = MaxNameLength

// checkSpan checks a period: start before end, at most MaxCalendarSpan
// apart; field end.
func checkSpan(v *Validation, start, end time.Time) {
	switch {
	case start.IsZero():
		v.Add("start", "start is required: a timestamp with offset.")
	case end.IsZero():
		v.Add("end", "end is required: a timestamp with offset.")
	case !start.Before(end):
		v.Add("end", "end must be after start.")
	case end.Sub(start) > MaxCalendarSpan:
		v.Add("end", "An absence or maintenance window lasts at most 366 days; split a longer one.")
	}
}

// CheckAbsence checks an absence's fields (the technician's location is
// the store's to check: field techId).
func CheckAbsence(a Absence) error {
	var v Validation
	checkSpan(&v, a.Start, a.End)
	if !slices.Contains(AbsenceReasons, a.Reason) {
		v.Add("reason", "reason is one of %s.", strings.Join(AbsenceReasons, ", "))
	}
	if len([]rune(a.Note)) > MaxNoteLength {
		v.Add("note", "A note is at most %d characters.", MaxNoteLength)
	}
	return v.Err()
}

// CheckMaintenanceWindow checks a maintenance window's fields.
func CheckMaintenanceWindow(w MaintenanceWindow) error {
	var v Validation
	checkSpan(&v, w.Start, w.End)
	if len([]rune(w.Reason)) > MaxNoteLength {
		v.Add("reason", "A reason is at most %d characters.", MaxNameLength)
	}
	return v.Err()
}

// SpanDates are the first and last local dates (YYYY-MM-DD) a period
// [start, end) touches in zone: what a list's from/to compare.
func SpanDates(start, end time.Time, zone *time.Location) (first, last string) {
	return start.In(zone).Format(time.DateOnly), end.Add(-time.Microsecond).In(zone).Format(time.DateOnly)
}
