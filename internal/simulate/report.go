package simulate

import (
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Row is what one policy with one duration setting did over the days.
type Row struct {
	Policy    string `json:"policy"`
	Durations string `json:"durations"`
	// PromisesKept: jobs ready by their promise over the jobs whose
	// promise fell within the simulated days (from the first opening to
	// the last closing); 0..1.
	PromisesKept float64 `json:"promisesKept"`
	// MeanQuoteMinutes: the promise minus the arrival quoted from (a
	// booking's agreed time, a walk-in's arrival), wall clock, over every
	// job entered in the days that was not a no-show.
	MeanQuoteMinutes float64 `json:"meanQuoteMinutes"`
	// WeightedLateMinutes: minutes past the promise (rounded up) times the
	// priority's weight, summed over the same jobs, each run to its end.
	WeightedLateMinutes int `json:"weightedLateMinutes"`
	// Utilisation: the technicians' working time on steps over their
	// working time present, within the simulated days.
	Utilisation float64 `json:"utilisation"`
	// Churn: of the pending steps a plan placed that are still pending at
	// the next plan, the share the next one moved as the contract counts
	// moves (section 8): unplaced, another technician or bay, or a start
	// more than 15 minutes after the step's announced start.
	Churn float64 `json:"churn"`
	// MeanLeadMinutes: ready minus actual arrival, wall clock, over the
	// same jobs.
	MeanLeadMinutes float64 `json:"meanLeadMinutes"`
}

// Report is the figures of every run, policy by policy.
type Report struct {
	Policies []Row     `json:"policies"`
	Workshop *Workshop `json:"-"` // what was simulated
}

// Run simulates c under every policy with every duration setting asked
// for (nil: all), the runs side by side; the report is the same for the
// same config on any machine.
func Run(c Config, policies, durations []string) (Report, error) {
	if policies == nil {
		policies = Policies
	}
	if durations == nil {
		durations = workshop.PlanningDurationsValues
	}
	w, err := NewWorkshop(c)
	if err != nil {
		return Report{}, err
	}
	days := Days(c, w)
	rows := make([]Row, len(policies)*len(durations))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for pi, p := range policies {
		for di, d := range durations {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				rows[pi*len(durations)+di] = simulateOne(w, days, p, d, c.Confidence)
			}()
		}
	}
	wg.Wait()
	return Report{Policies: rows, Workshop: w}, nil
}

func simulateOne(w *Workshop, days []Day, policy, durations string, confidence float64) Row {
	row := Row{Policy: policy, Durations: durations}
	if len(days) == 0 {
		return row
	}
	r := newRun(w, days, policy, durations)
	r.confidence = confidence
	r.simulate()
	windowStart, windowEnd := r.windowStart(), r.windowEnd()
	var promised, kept, counted int
	var quote, lead time.Duration
	for _, j := range r.jobs {
		if j.cancelled || j.ready.IsZero() {
			continue
		}
		counted++
		quote += j.promise.Sub(j.from)
		lead += j.ready.Sub(j.spec.Arrival)
		row.WeightedLateMinutes += workshop.LateMinutes(&j.promise, j.ready) * workshop.PriorityWeight(j.spec.Priority)
		if !j.promise.After(windowEnd) {
			promised++
			if !j.ready.After(j.promise) {
				kept++
			}
		}
	}
	row.PromisesKept = ratio(kept, promised, 4)
	if counted > 0 {
		row.MeanQuoteMinutes = round(quote.Minutes()/float64(counted), 1)
		row.MeanLeadMinutes = round(lead.Minutes()/float64(counted), 1)
	}
	row.Churn = ratio(r.moved, r.compared, 4)
	row.Utilisation = r.utilisation(windowStart, windowEnd)
	return row
}

// utilisation is the technicians' working time on steps within the window
// over their working time there less their absences.
func (r *run) utilisation(from, to time.Time) float64 {
	var present time.Duration
	for _, t := range r.w.Techs {
		present += r.workOf(t.ID).WorkBetween(from, to)
	}
	for _, a := range r.absences {
		present -= r.workOf(a.Tech).WorkBetween(workshop.Later(a.From, from), workshop.Earlier(a.To, to))
	}
	var busy time.Duration
	for _, j := range r.jobs {
		for _, s := range j.steps {
			if s.status == workshop.StepPending {
				continue
			}
			if a, b := workshop.Later(s.start, from), workshop.Earlier(s.end, to); b.After(a) {
				busy += r.workOf(s.tech).WorkBetween(a, b)
			}
		}
	}
	if present <= 0 {
		return 0
	}
	return round(float64(busy)/float64(present), 4)
}

func ratio(a, b, digits int) float64 {
	if b == 0 {
		return 0
	}
	return round(float64(a)/float64(b), digits)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
