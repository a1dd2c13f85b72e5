// Package simulate is `workshop simulate`: seeded workshop days run in
// virtual time through the real planner (workshop.PlanDispatch), the real
// availability quote (workshop.QuoteAvailability), the location's working
// calendar and the learned-duration rules of contract section 9, under a
// dispatch policy, to measure how many of the promises a policy quotes it
// keeps. No clock is read and nothing sleeps: time moves from one event
// (an arrival, a step ending, a technician leaving) to the next.
package simulate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Config is the workshop to generate and how long to run it.
type Config struct {
	Seed        uint64
	Days        int // working days (Monday to Friday) with arrivals
	Technicians int
	Bays        int
	Services    int // the first Services of the catalog (at most len(Catalog))
	JobsPerDay  int // on average; each day draws within 3 of it
	// Hire adds technicians with these skills (speed 1.0) to the generated
	// ones; AddBays adds bays that take these services (empty: any).
	Hire    [][]string
	AddBays [][]string
	// Confidence is the promise confidence quotes are made at with learned
	// durations (contract section 9): the margin over the work at its p50.
	Confidence float64
	// PartTime is how many of the generated technicians work mornings only
	// (PartTimeHours), planned and worked by the working-time rule of
	// contract section 8.
	PartTime int
}

// PartTimeHours are a part-time technician's weekly hours: weekday
// mornings.
var PartTimeHours = func() []workshop.WeeklyHours {
	var out []workshop.WeeklyHours
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		out = append(out, workshop.WeeklyHours{Day: d, Start: "07:00", End: "13:00"})
	}
	return out
}()

// DefaultConfig is the documented default workshop.
func DefaultConfig() Config {
	return Config{Seed: 1, Days: 10, Technicians: 8, Bays: 5, Services: 10, JobsPerDay: 35,
		Confidence: workshop.DefaultPromiseConfidence}
}

// Service is a catalog item of the simulated workshop.
type Service struct {
	Code     string
	Name     string
	Skills   []string
	Estimate int     // minutes
	Weight   int     // how often customers ask for it, relative
	Bias     float64 // drawn per seed: how long it really runs against its estimate
}

// Catalog is the simulated workshop's catalog, the most common first.
// The estimates are the catalog's; each seed draws how far each runs
// long or short (Service.Bias).
var Catalog = []Service{
	{Code: "OIL", Name: "oil service", Estimate: 25, Weight: 20},
	{Code: "INSP", Name: "inspection", Estimate: 25, Weight: 16},
	{Code: "TYRE", Name: "tyre change", Skills: []string{"tyres"}, Estimate: 20, Weight: 15},
	{Code: "BRAKE", Name: "brakes", Skills: []string{"brakes"}, Estimate: 40, Weight: 12},
	{Code: "DIAG", Name: "diagnostics", Skills: []string{"diagnostics"}, Estimate: 30, Weight: 10},
	{Code: "ELEC", Name: "electrics", Skills: []string{"electrics"}, Estimate: 40, Weight: 8},
	{Code: "AC", Name: "air conditioning", Skills: []string{"ac"}, Estimate: 35, Weight: 6},
	{Code: "EV", Name: "EV battery check", Skills: []string{"ev", "electrics"}, Estimate: 50, Weight: 5},
	{Code: "ENG", Name: "engine repair", Skills: []string{"engine"}, Estimate: 75, Weight: 4},
	{Code: "BODY", Name: "body work", Skills: []string{"body"}, Estimate: 60, Weight: 4},
}

// Skills are the skills technicians are drawn with, and how likely each
// is (the work that needs it is common).
var (
	Skills       = []string{"tyres", "brakes", "electrics", "diagnostics", "ac", "engine", "ev", "body"}
	skillWeights = []int{5, 5, 4, 2, 2, 2, 1, 1}
)

// Tech is a simulated technician.
type Tech struct {
	ID     string
	Skills []string
	Speed  float64                // actual durations are multiplied by it
	Hours  []workshop.WeeklyHours // nil: the location's working time
}

// Bay is a simulated bay.
type Bay struct {
	ID       string
	Services []string // empty: any
}

// Workshop is a generated workshop: its calendar, catalog, technicians and
// bays.
type Workshop struct {
	Calendar  workshop.Calendar
	Zone      *time.Location
	BayBuffer time.Duration
	Services  []Service
	Techs     []Tech
	Bays      []Bay
	First     time.Time // local midnight of the first simulated day
}

// firstDay is the Monday the simulated days start on.
var firstDay = [3]int{2026, 1, 5}

// NewWorkshop generates the workshop of c: technicians with two to four
// skills and a speed of 0.85-1.15 (every skill the catalog needs is had by
// someone), two bays that take anything and the others a few services
// each, then the technicians and bays c adds.
func NewWorkshop(c Config) (*Workshop, error) {
	if c.Services < 1 || c.Services > len(Catalog) {
		return nil, fmt.Errorf("services: between 1 and %d", len(Catalog))
	}
	if c.Technicians < 0 || c.Bays < 0 || c.Technicians+len(c.Hire) < 1 {
		return nil, fmt.Errorf("technicians: at least one")
	}
	zone, err := workshop.LoadZone("Europe/Berlin")
	if err != nil {
		return nil, err
	}
	settings := workshop.DefaultSettings()
	settings.BayBufferMinutes = 5
	w := &Workshop{Calendar: workshop.NewCalendar(zone, settings), Zone: zone, BayBuffer: settings.BayBuffer(),
		First: time.Date(firstDay[0], time.Month(firstDay[1]), firstDay[2], 0, 0, 0, 0, zone)}
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed))
	for _, s := range Catalog[:c.Services] {
		s.Bias = 0.8 + 0.5*rng.Float64()
		w.Services = append(w.Services, s)
	}
	for i := range c.Technicians {
		var skills []string
		for n := 2 + rng.IntN(3); len(skills) < n; {
			if k := Skills[weightedIndex(rng, skillWeights)]; !slices.Contains(skills, k) {
				skills = append(skills, k)
			}
		}
		w.Techs = append(w.Techs, Tech{ID: fmt.Sprintf("tec_%02d", i+1), Skills: skills, Speed: 0.85 + 0.3*rng.Float64()})
		if i < c.PartTime {
			w.Techs[i].Hours = PartTimeHours
		}
	}
	w.coverSkills(rng)
	for i, skills := range c.Hire {
		w.Techs = append(w.Techs, Tech{ID: fmt.Sprintf("hire_%02d", i+1), Skills: slices.Clone(skills), Speed: 1})
	}
	for i := range c.Bays {
		b := Bay{ID: fmt.Sprintf("bay_%02d", i+1)}
		if i >= 2 {
			for _, k := range rng.Perm(len(w.Services))[:min(len(w.Services), 4+rng.IntN(3))] {
				b.Services = append(b.Services, w.Services[k].Code)
			}
			slices.Sort(b.Services)
		}
		w.Bays = append(w.Bays, b)
	}
	for i, services := range c.AddBays {
		w.Bays = append(w.Bays, Bay{ID: fmt.Sprintf("new_bay_%02d", i+1), Services: slices.Clone(services)})
	}
	for _, t := range w.Techs {
		slices.Sort(t.Skills)
	}
	return w, nil
}

// coverSkills gives the skills of a service no generated technician can
// do to one of them, so that every service can be done.
func (w *Workshop) coverSkills(rng *rand.Rand) {
	if len(w.Techs) == 0 {
		return
	}
	for _, s := range w.Services {
		if slices.ContainsFunc(w.Techs, func(t Tech) bool { return hasAll(t.Skills, s.Skills) }) {
			continue
		}
		t := &w.Techs[rng.IntN(len(w.Techs))]
		for _, skill := range s.Skills {
			if !slices.Contains(t.Skills, skill) {
				t.Skills = append(t.Skills, skill)
			}
		}
	}
}

// weightedIndex draws an index of weights, each as likely as its weight.
func weightedIndex(rng *rand.Rand, weights []int) int {
	total := 0
	for _, x := range weights {
		total += x
	}
	r := rng.IntN(total)
	for i, x := range weights {
		if r < x {
			return i
		}
		r -= x
	}
	return len(weights) - 1
}

func (w *Workshop) service(code string) *Service {
	for i := range w.Services {
		if w.Services[i].Code == code {
			return &w.Services[i]
		}
	}
	return nil
}
