package workshop

import (
	"time"
)

// The days to offer a booking and the plan's capacity (contract section
// 8): both read one plan and the working time of worktime.go.

// DayOffer is a day an advisor can offer for a booking: when the job
// would be ready if the car were dropped off at the day's opening.
type DayOffer struct {
	Date               time.Time // local midnight
	DropOff            time.Time // the day's opening; today, now when later
	EarliestCompletion *time.Time
	SameDay            bool   // EarliestCompletion falls on Date
	Unplaced           string // why a step cannot be placed ("" when every step is)
}

// maxOfferSearch bounds how far OfferDays looks for working days: a
// location open one day a year still gets its answer.
const maxOfferSearch = 366

// OfferDays quotes steps (as QuoteAvailability, with confidence) for a
// drop-off on each of the first days working days from the local date
// from (midnight in the calendar's zone), around plan. A working day is a
// date with working time; a location without any hours works every day.
func OfferDays(in DispatchInput, plan Dispatch, from time.Time, days int, steps []QuoteStep, confidence float64) []DayOffer {
	q := NewQuoter(in, plan)
	cal := in.Calendar
	var out []DayOffer
	for i := 0; i < maxOfferSearch && len(out) < days; i++ {
		y, m, d := from.Date()
		date := time.Date(y, m, d+i, 0, 0, 0, 0, from.Location())
		opening, ok := cal.OpeningTime(date.Year(), date.Month(), date.Day())
		if !ok {
			continue
		}
		dropOff := Later(opening, in.Now)
		quote := q.Quote(dropOff, steps, confidence)
		o := DayOffer{Date: date, DropOff: dropOff.In(date.Location()), EarliestCompletion: quote.EarliestCompletion, Unplaced: quote.Unplaced}
		if e := quote.EarliestCompletion; e != nil {
			ey, em, ed := e.In(date.Location()).Date()
			o.SameDay = ey == date.Year() && em == date.Month() && ed == date.Day()
		}
		out = append(out, o)
	}
	return out
}

// CapacityDay is a day's working time and planned work, in minutes, of the
// technicians together and each.
type CapacityDay struct {
	Date               time.Time // local midnight
	Available, Planned int
	Technicians        []TechCapacity
}

// TechCapacity is one technician's working and planned minutes on a day.
type TechCapacity struct {
	TechID             string
	Available, Planned int
}

// Capacity is, for days local dates from from (midnight in the calendar's
// zone), each technician's working time (0 for one unavailable, as the plan
// gives them nothing) and the working time of plan's steps on them: a step
// counts its technicians' and bay's shared working time within the day
// (a step in progress, the location's, from the plan's start on) fully for
// each of its technicians.
func Capacity(in DispatchInput, plan Dispatch, from time.Time, days int) []CapacityDay {
	cal := in.Calendar
	zone := from.Location()
	span := Interval{Start: from.AddDate(0, 0, -1), End: from.AddDate(0, 0, days+1)}
	inProgress := map[string]bool{}
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			inProgress[s.ID] = s.Status == StepInProgress
		}
	}
	shifts := map[string]Shift{}
	shiftOf := func(s PlannedStep) Shift {
		key := s.BayID
		for _, t := range s.TechIDs {
			key += "," + t
		}
		if inProgress[s.StepID] {
			key = ""
		}
		if sh, ok := shifts[key]; ok {
			return sh
		}
		var works []WorkTime
		if key != "" {
			works = in.WorkOf(s.TechIDs, s.BayID)
		}
		sh := cal.Shift(span.Start, span.End, works...)
		shifts[key] = sh
		return sh
	}
	out := make([]CapacityDay, days)
	for i := range out {
		y, m, d := from.Date()
		start, end := time.Date(y, m, d+i, 0, 0, 0, 0, zone), time.Date(y, m, d+i+1, 0, 0, 0, 0, zone)
		day := CapacityDay{Date: start, Technicians: make([]TechCapacity, 0, len(in.Techs))}
		planned := map[string]time.Duration{}
		for _, s := range plan.Steps {
			a, b := Later(s.Start, start), Earlier(s.End, end)
			if inProgress[s.StepID] {
				a = Later(a, plan.Start)
			}
			if !b.After(a) {
				continue
			}
			work := shiftOf(s).WorkBetween(a, b)
			for _, t := range s.TechIDs {
				planned[t] += work
			}
		}
		for _, t := range in.Techs {
			c := TechCapacity{TechID: t.ID, Planned: int(planned[t.ID] / time.Minute)}
			if !t.Unavailable {
				c.Available = cal.WorkMinutes(t.Work, start, end)
			}
			day.Available, day.Planned = day.Available+c.Available, day.Planned+c.Planned
			day.Technicians = append(day.Technicians, c)
		}
		out[i] = day
	}
	return out
}
