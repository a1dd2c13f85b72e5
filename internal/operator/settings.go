package operator

import (
	"context"

	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// SettingsOut is a location's settings as set.
type SettingsOut struct {
	LocationID string `json:"locationId"`
	workshop.Settings
}

// SettingsOption changes a setting besides hours, breaks and bay buffer.
type SettingsOption func(*workshop.Settings)

// PlanningDurations sets planningDurations (estimate, p50 or p80); ""
// keeps it.
func PlanningDurations(v string) SettingsOption {
	return func(s *workshop.Settings) {
		if v != "" {
			s.PlanningDurations = v
		}
	}
}

// PromiseConfidence sets promiseConfidence; 0 keeps it.
func PromiseConfidence(v float64) SettingsOption {
	return func(s *workshop.Settings) {
		if v != 0 {
			s.PromiseConfidence = v
		}
	}
}

// CustomerDataRetention sets customerDataRetentionDays from the command
// line: "" keeps it, "none" removes the limit, else a whole number of days
// (30 to 3650, checked with the other settings).
func CustomerDataRetention(v string) (SettingsOption, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "":
		return func(*workshop.Settings) {}, nil
	case "none":
		return func(s *workshop.Settings) { s.CustomerDataRetentionDays = nil }, nil
	}
	days, err := strconv.Atoi(v)
	if err != nil {
		return nil, workshop.Invalid("customerDataRetentionDays", "Give the days as a whole number from %d to %d, or none.",
			workshop.MinRetentionDays, workshop.MaxRetentionDays)
	}
	return func(s *workshop.Settings) { s.CustomerDataRetentionDays = &days }, nil
}

// SetSettings replaces a location's workshop settings. hours and breaks
// are comma-separated DAYS=HH:MM-HH:MM entries, DAYS a weekday (mon) or a
// range (mon-fri); "" keeps the current value, "none" empties it.
func (o *Operator) SetSettings(ctx context.Context, locationID, hours, breaks string, bayBuffer *int, opts ...SettingsOption) (SettingsOut, error) {
	if _, err := o.Store.LocationByID(ctx, locationID); err != nil {
		return SettingsOut{}, err
	}
	cur, err := o.Store.Settings(ctx, locationID)
	if err != nil {
		return SettingsOut{}, err
	}
	if hours != "" {
		spans, err := parseSpans("hours", hours)
		if err != nil {
			return SettingsOut{}, err
		}
		cur.OperatingHours = nil
		for _, s := range spans {
			cur.OperatingHours = append(cur.OperatingHours, workshop.OpeningHours{Day: s.day, Open: s.from, Close: s.to})
		}
	}
	if breaks != "" {
		spans, err := parseSpans("breaks", breaks)
		if err != nil {
			return SettingsOut{}, err
		}
		cur.Breaks = nil
		for _, s := range spans {
			cur.Breaks = append(cur.Breaks, workshop.Break{Day: s.day, Start: s.from, End: s.to})
		}
	}
	if bayBuffer != nil {
		cur.BayBufferMinutes = *bayBuffer
	}
	for _, o := range opts {
		o(&cur)
	}
	if cur.OperatingHours == nil {
		cur.OperatingHours = []workshop.OpeningHours{}
	}
	if cur.Breaks == nil {
		cur.Breaks = []workshop.Break{}
	}
	if err := workshop.ValidateSettings(cur); err != nil {
		return SettingsOut{}, err
	}
	return SettingsOut{LocationID: locationID, Settings: cur}, o.Store.SetSettings(ctx, locationID, cur)
}

type span struct{ day, from, to string }

// parseSpans reads "mon-fri=08:00-17:30,sat=09:00-13:00" (or "none").
func parseSpans(field, list string) ([]span, error) {
	if list == "none" {
		return nil, nil
	}
	var out []span
	for _, entry := range strings.Split(list, ",") {
		days, times, ok := strings.Cut(strings.TrimSpace(entry), "=")
		from, to, ok2 := strings.Cut(times, "-")
		if !ok || !ok2 {
			return nil, workshop.Invalid(field, "%q is not DAYS=HH:MM-HH:MM (e.g. mon-fri=08:00-17:30).", entry)
		}
		f, err1 := time.Parse("15:04", from)
		t, err2 := time.Parse("15:04", to)
		if err1 != nil || err2 != nil || !f.Before(t) {
			return nil, workshop.Invalid(field, "%q: want two times HH:MM, the first before the second.", entry)
		}
		ds, err := dayRange(field, days)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			out = append(out, span{day: d, from: from, to: to})
		}
	}
	return out, nil
}

func dayRange(field, days string) ([]string, error) {
	first, last, isRange := strings.Cut(days, "-")
	i, j := slices.Index(workshop.Weekdays, first), slices.Index(workshop.Weekdays, first)
	if isRange {
		j = slices.Index(workshop.Weekdays, last)
	}
	if i < 0 || j < 0 || j < i {
		return nil, workshop.Invalid(field, "%q is not a weekday (mon..sun) or a range of them such as mon-fri.", days)
	}
	return workshop.Weekdays[i : j+1], nil
}
