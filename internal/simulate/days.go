package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The customers of the simulated days. They are drawn from the seed alone,
// before any policy runs, so that every policy serves the same customers
// with the same luck: the same arrivals, no-shows, absences and, for a
// step done by a given technician, the same actual duration.

// JobSpec is a customer's job as the day brings it.
type JobSpec struct {
	ID       string
	Priority string
	Booked   bool      // booked ahead: entered and quoted before the day opens
	Expected time.Time // a booking's agreed arrival; a walk-in's arrival
	Arrival  time.Time // when the vehicle actually arrives (late bookings later)
	NoShow   bool      // a booking that never comes; cancelled an hour after Expected
	// CollectAtClose: the customer collects at the day's closing, so the
	// promise is the closing time unless the quote is later (the fixed rule).
	CollectAtClose bool
	Steps          []StepSpec
}

// StepSpec is a step of a job: a catalog service, and its luck.
type StepSpec struct {
	ID      string
	Service string
	Phase   int
	Mode    string  // sequential or parallel
	Noise   float64 // lognormal, sigma 0.25: actual = estimate x bias x speed x noise
}

// Absence is a technician away for part of a day.
type Absence struct {
	Tech     string
	From, To time.Time
}

// Day is one simulated working day.
type Day struct {
	Date    time.Time // local midnight
	Jobs    []JobSpec // by Expected
	Absence Absence
}

// Opening hours of arrivals: customers come from 07:30 to 15:00; bookings
// are agreed for 07:30-10:00.
const (
	arrivalsFrom  = 7*60 + 30
	arrivalsUntil = 15 * 60
	bookingsUntil = 10 * 60
)

var priorities = []struct {
	name   string
	chance float64
}{{"low", 0.15}, {"normal", 0.60}, {"high", 0.20}, {"urgent", 0.05}}

// stepCounts are the chances of a job having 1, 2, 3 or 4 steps.
var stepCounts = []float64{0.5, 0.3, 0.13, 0.07}

// Days generates the c.Days working days of w from the seed.
func Days(c Config, w *Workshop) []Day {
	var out []Day
	date := w.First
	for len(out) < c.Days {
		if wd := date.Weekday(); wd != time.Saturday && wd != time.Sunday {
			rng := rand.New(rand.NewPCG(c.Seed, uint64(len(out))+1))
			out = append(out, newDay(rng, c, w, len(out), date))
		}
		date = date.AddDate(0, 0, 1)
	}
	return out
}

func newDay(rng *rand.Rand, c Config, w *Workshop, n int, date time.Time) Day {
	d := Day{Date: date}
	at := func(minutes float64) time.Time {
		return date.Add(time.Duration(math.Round(minutes)) * time.Minute)
	}
	jobs := max(0, c.JobsPerDay-3+rng.IntN(7))
	for i := range jobs {
		j := JobSpec{ID: fmt.Sprintf("d%02dj%02d", n+1, i+1), Priority: pick(rng), Booked: rng.Float64() < 0.4,
			CollectAtClose: rng.Float64() < 0.3}
		if j.Booked {
			j.Expected = at(float64(arrivalsFrom + 15*rng.IntN((bookingsUntil-arrivalsFrom)/15+1)))
			j.Arrival = j.Expected.Add(time.Duration(rng.IntN(6)) * time.Minute)
			switch r := rng.Float64(); {
			case r < 0.05:
				j.NoShow = true
			case r < 0.30: // late, by 10 to 60 minutes
				j.Arrival = j.Expected.Add(time.Duration(10+rng.IntN(51)) * time.Minute)
			}
		} else {
			j.Expected = at(arrivalsFrom + rng.Float64()*(arrivalsUntil-arrivalsFrom))
			j.Arrival = j.Expected
		}
		j.Steps = steps(rng, w, j.ID)
		d.Jobs = append(d.Jobs, j)
	}
	slices.SortStableFunc(d.Jobs, func(a, b JobSpec) int { return a.Expected.Compare(b.Expected) })
	// one of the generated technicians, so that hiring changes no one's luck
	if c.Technicians > 0 {
		from := at(float64(8*60 + rng.IntN(5*60)))
		d.Absence = Absence{Tech: w.Techs[rng.IntN(c.Technicians)].ID, From: from,
			To: from.Add(time.Duration(120+rng.IntN(121)) * time.Minute)}
	}
	return d
}

func pick(rng *rand.Rand) string {
	r := rng.Float64()
	for _, p := range priorities {
		if r < p.chance {
			return p.name
		}
		r -= p.chance
	}
	return "normal"
}

// steps draws 1-4 distinct services by their weight; a step after the
// first is, one time in five, parallel to the one before.
func steps(rng *rand.Rand, w *Workshop, job string) []StepSpec {
	n, r := 1, rng.Float64()
	for k, chance := range stepCounts {
		if r < chance {
			n = k + 1
			break
		}
		r -= chance
	}
	n = min(n, len(w.Services))
	var out []StepSpec
	taken := map[string]bool{}
	phase := 0
	for len(out) < n {
		s := w.Services[weightedIndex(rng, serviceWeights(w.Services))]
		if taken[s.Code] {
			continue
		}
		taken[s.Code] = true
		mode := "sequential"
		if len(out) > 0 {
			if rng.Float64() < 0.2 {
				mode = "parallel"
			} else {
				phase++
			}
		}
		out = append(out, StepSpec{ID: fmt.Sprintf("%ss%d", job, len(out)+1), Service: s.Code, Phase: phase, Mode: mode,
			Noise: math.Exp(0.25 * rng.NormFloat64())})
	}
	return out
}

func serviceWeights(services []Service) []int {
	out := make([]int, len(services))
	for i, s := range services {
		out[i] = s.Weight
	}
	return out
}
