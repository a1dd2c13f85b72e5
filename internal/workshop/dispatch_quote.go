package workshop

import (
	"slices"
	"time"
)

// QuoteStep is a service of a job an advisor is quoting.
type QuoteStep struct {
	ServiceCode    string
	Duration       time.Duration
	RequiredSkills []string
	Spread         time.Duration // DurationSpread of its service; 0: not known
}

// QuotedStep is where a quoted step would go.
type QuotedStep struct {
	ServiceCode string
	TechIDs     []string
	BayID       string
	Start, End  time.Time
}

// Quote is when a new job could be done.
type Quote struct {
	EarliestCompletion *time.Time // nil when a step cannot be placed
	Steps              []QuotedStep
	Unplaced           string        // the reason of the first step that cannot be placed
	Margin             time.Duration // the working time added for confidence (ConfidenceMargin)
}

// QuoteAvailability says when a new job with steps (one sequential step
// each, in order) could be done if it arrived at from, without moving any
// work of plan: its placed steps keep their technicians, bays and times,
// and each new step goes to the qualified technician and suitable bay that
// let it end earliest after the one before. With a confidence (0: none)
// the earliest completion is the last step's end plus the margin of
// working time for the spreads of the new steps and of the steps planned
// before them on the technicians and bays they get (contract section 9).
func QuoteAvailability(in DispatchInput, plan Dispatch, from time.Time, steps []QuoteStep, confidence float64) Quote {
	return NewQuoter(in, plan).Quote(from, steps, confidence)
}

// Quoter quotes new jobs around one plan, prepared once for many quotes
// (the days to offer a booking ask one per day). It is for one goroutine.
type Quoter struct {
	in   DispatchInput
	plan Dispatch
	p    *problem
	r    resources // the plan's work on its technicians and bays
}

// NewQuoter prepares quotes around plan, made from in.
func NewQuoter(in DispatchInput, plan Dispatch) *Quoter {
	p := newProblem(in)
	r := p.fixed.clone()
	fixed := p.fixedSteps() // in the timelines already
	for _, s := range plan.Steps {
		if !fixed[s.StepID] {
			p.take(&r, s.TechIDs, s.BayID, micros(s.Start), micros(s.End), s.JobID)
		}
	}
	return &Quoter{in: in, plan: plan, p: p, r: r}
}

// Quote is QuoteAvailability around the quoter's plan.
func (qt *Quoter) Quote(from time.Time, steps []QuoteStep, confidence float64) Quote {
	p, r := qt.p, qt.r.clone()
	q := Quote{Steps: []QuotedStep{}}
	release := max(p.start, micros(from))
	const job = "quote" // a job of its own: the bay buffer applies to the others
	for _, qs := range steps {
		s := pstep{DispatchStep: DispatchStep{ServiceCode: qs.ServiceCode, Duration: qs.Duration, RequiredSkills: qs.RequiredSkills,
			Status: StepPending}, jobID: job, dur: int64(qs.Duration / time.Microsecond)}
		s.techs, s.bays = p.candidates(s.DispatchStep)
		p.choices(&s)
		pl := p.place(&s, release, &r, tieListed)
		if pl.reason != "" {
			q.Unplaced = pl.reason
			return q
		}
		p.take(&r, pl.techs, pl.bay, pl.start, pl.end, job)
		q.Steps = append(q.Steps, QuotedStep{ServiceCode: qs.ServiceCode, TechIDs: pl.techs, BayID: pl.bay,
			Start: p.timeOf(pl.start), End: p.timeOf(pl.end)})
		release = pl.end
	}
	if n := len(q.Steps); n > 0 {
		if confidence > 0 {
			q.Margin = ConfidenceMargin(confidence, quoteSpreads(qt.in, qt.plan, q.Steps, steps))
		}
		end := p.timeOf(p.clock.addWork(micros(q.Steps[n-1].End), int64(q.Margin/time.Microsecond)))
		q.EarliestCompletion = &end
	} else {
		start := p.timeOf(p.clock.nextOpen(release))
		q.EarliestCompletion = &start
	}
	return q
}

// quoteSpreads are the spreads a quote's margin counts: of the quoted
// steps, and of the steps of the plan that start before one of them on
// its technicians or bay (each once).
func quoteSpreads(in DispatchInput, plan Dispatch, quoted []QuotedStep, steps []QuoteStep) []time.Duration {
	spread := map[string]time.Duration{}
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			spread[s.ID] = s.Spread
		}
	}
	var out []time.Duration
	counted := map[string]bool{}
	for i, q := range quoted {
		out = append(out, steps[i].Spread)
		for _, ps := range plan.Steps {
			shares := ps.BayID != "" && ps.BayID == q.BayID || slices.ContainsFunc(ps.TechIDs, func(t string) bool { return slices.Contains(q.TechIDs, t) })
			if shares && ps.Start.Before(q.Start) && !counted[ps.StepID] {
				counted[ps.StepID] = true
				out = append(out, spread[ps.StepID])
			}
		}
	}
	return out
}

// fixedSteps are the ids of the steps placed before any decode (in
// progress, scheduled).
func (p *problem) fixedSteps() map[string]bool {
	ids := map[string]bool{}
	for _, pj := range p.jobs {
		for _, s := range pj.steps {
			if s.fixed {
				ids[s.ID] = true
			}
		}
	}
	return ids
}
