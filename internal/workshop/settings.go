package workshop

// Settings is a location's workshop settings: when it works and how bays
// are turned around. Read-only through the API.
type Settings struct {
	OperatingHours   []OpeningHours `json:"operatingHours"`
	Breaks           []Break        `json:"breaks"`
	BayBufferMinutes int            `json:"bayBufferMinutes"`
	// PlanningDurations is which duration the plan gives a step of a
	// catalog item: estimate, p50 or p80 (PlanWithEstimate...).
	PlanningDurations string `json:"planningDurations"`
	// PromiseConfidence is the share of quoted promises the location wants
	// kept, 0.5 to 0.99 (DefaultPromiseConfidence): with learned durations
	// the availability quote adds the margin it takes (contract section 9).
	PromiseConfidence float64 `json:"promiseConfidence"`
	// CustomerDataRetentionDays is how many days a closed job keeps its
	// customer fields after it closed (nil: kept), 30 to 3650.
	CustomerDataRetentionDays *int `json:"customerDataRetentionDays"`
	// UpdatedAt is the settings' version, for the application's edit; the
	// API's settings record does not show it.
	UpdatedAt Micros `json:"-"`
}

// OpeningHours is one weekday's opening, local times HH:MM.
type OpeningHours struct {
	Day   string `json:"day"`
	Open  string `json:"open"`
	Close string `json:"close"`
}

// Break is one weekday's break, local times HH:MM.
type Break struct {
	Day   string `json:"day"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// DefaultSettings are the settings of a new location: weekdays 08:00-17:30
// with a lunch break, Saturday mornings, a 10-minute bay buffer.
func DefaultSettings() Settings {
	s := Settings{BayBufferMinutes: 10, PlanningDurations: PlanWithEstimate, PromiseConfidence: DefaultPromiseConfidence}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		s.OperatingHours = append(s.OperatingHours, OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
		s.Breaks = append(s.Breaks, Break{Day: d, Start: "12:00", End: "12:30"})
	}
	s.OperatingHours = append(s.OperatingHours, OpeningHours{Day: "sat", Open: "09:00", Close: "13:00"})
	return s
}
