package workshop

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Weekdays are the days of the settings, Monday first.
var Weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// MaxBayBufferMinutes bounds the bay buffer: a bay held free four hours
// between vehicles is a typo, not a practice.
const MaxBayBufferMinutes = 240

// ValidateSettings checks a location's settings whole: each day's hours
// (HH:MM, opening before closing, a day at most once), its breaks (inside
// that day's hours, none overlapping another) and the bay buffer. Fields
// are named per day: operatingHours.mon, breaks.mon, and bayBufferMinutes.
func ValidateSettings(s Settings) error {
	var v Validation
	hours := map[string]OpeningHours{}
	for _, h := range s.OperatingHours {
		field := "operatingHours." + h.Day
		open, close, ok := clockSpan(h.Open, h.Close)
		switch {
		case !slices.Contains(Weekdays, h.Day):
			v.Add("operatingHours", "%q is not a weekday (mon..sun).", h.Day)
		case hours[h.Day] != (OpeningHours{}):
			v.Add(field, "%s has opening hours twice.", DayName(h.Day))
		case !ok || !open.Before(close):
			v.Add(field, "%s: give the opening and closing times as HH:MM, opening first.", DayName(h.Day))
		default:
			hours[h.Day] = h
		}
	}
	byDay := map[string][]Break{}
	for _, b := range s.Breaks {
		byDay[b.Day] = append(byDay[b.Day], b)
	}
	for _, day := range Weekdays {
		checkBreaks(&v, day, hours[day], byDay[day])
		delete(byDay, day)
	}
	for day := range byDay {
		v.Add("breaks", "%q is not a weekday (mon..sun).", day)
	}
	if s.BayBufferMinutes < 0 || s.BayBufferMinutes > MaxBayBufferMinutes {
		v.Add("bayBufferMinutes", "The bay buffer is 0 to %d minutes.", MaxBayBufferMinutes)
	}
	if s.PlanningDurations != "" && !slices.Contains(PlanningDurationsValues, s.PlanningDurations) {
		v.Add("planningDurations", "Planning durations are estimate, p50 or p80.")
	}
	if c := s.PromiseConfidence; !(c >= MinPromiseConfidence && c <= MaxPromiseConfidence) {
		v.Add("promiseConfidence", "The promise confidence is a share from %.2f to %.2f, such as 0.9 for nine promises in ten kept.",
			MinPromiseConfidence, MaxPromiseConfidence)
	}
	if d := s.CustomerDataRetentionDays; d != nil && (*d < MinRetentionDays || *d > MaxRetentionDays) {
		v.Add("customerDataRetentionDays", "Customer data is kept %d to %d days after a job closes, or without a limit.", MinRetentionDays, MaxRetentionDays)
	}
	return v.Err()
}

// The bounds of customerDataRetentionDays.
const (
	MinRetentionDays = 30
	MaxRetentionDays = 3650
)

// checkBreaks checks one day's breaks against its hours (zero: closed).
func checkBreaks(v *Validation, day string, h OpeningHours, breaks []Break) {
	field := "breaks." + day
	if len(breaks) > 0 && h == (OpeningHours{}) {
		v.Add(field, "%s is closed: it has no breaks.", DayName(day))
		return
	}
	open, close, _ := clockSpan(h.Open, h.Close)
	var spans [][2]time.Time
	for _, b := range breaks {
		start, end, ok := clockSpan(b.Start, b.End)
		switch {
		case !ok || !start.Before(end):
			v.Add(field, "%s: give each break as HH:MM-HH:MM, start first.", DayName(day))
			return
		case start.Before(open) || end.After(close):
			v.Add(field, "%s: the break %s-%s is outside the opening hours %s-%s.", DayName(day), b.Start, b.End, h.Open, h.Close)
			return
		}
		for _, s := range spans {
			if start.Before(s[1]) && s[0].Before(end) {
				v.Add(field, "%s: the breaks overlap.", DayName(day))
				return
			}
		}
		spans = append(spans, [2]time.Time{start, end})
	}
}

// clockSpan reads two HH:MM times.
func clockSpan(from, to string) (time.Time, time.Time, bool) {
	f, err1 := time.Parse("15:04", from)
	t, err2 := time.Parse("15:04", to)
	return f, t, err1 == nil && err2 == nil
}

var dayNames = map[string]string{"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday",
	"sat": "Saturday", "sun": "Sunday"}

// DayName is a weekday's name: Monday of mon.
func DayName(day string) string { return dayNames[day] }

// TagLabel makes a label of a tag: "Parts unavailable" of
// "parts_unavailable".
func TagLabel(tag string) string {
	s := strings.ReplaceAll(tag, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// cancelTagRe is a cancel reason tag: what integrations send, so plain.
var cancelTagRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,63}$`)

// CheckCancelTag refuses a tag that is not lower-case letters, digits and
// _ (at most 64), and a label longer than 100 characters; the errors name
// the caller's fields (a form's two, a command's one).
func CheckCancelTag(tagField, labelField, tag, label string) error {
	var v Validation
	if !cancelTagRe.MatchString(tag) {
		v.Add(tagField, "%q is not a tag: lower-case letters, digits and _, at most 64.", tag)
	}
	if n := len([]rune(label)); n > 100 {
		v.Add(labelField, "A label has at most 100 characters (this has %d).", n)
	}
	return v.Err()
}
