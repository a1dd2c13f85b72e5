package workshop

// The dispatch planner (contract section 8): which technician and bay does
// each open step of a location when. Pure: the location's data and "now"
// in, a plan out, the same plan for the same input.
//
// A plan is decoded from an order of the jobs (dispatch_decode.go): job by
// job in that order, each step in its job's precedence order goes to the
// qualified technician and suitable bay that let it end earliest, into the
// first gap that fits, never moving what is already placed. Which of
// several equally early resources it takes is a tie rule: the first
// listed, the one the rest of the work wants least, or the least wanted
// of those starting within two hours (dispatch_fit.go). On small days a
// decode may also interleave the jobs' steps, each next step the one that
// can start earliest (dispatch_interleave.go). The search
// (dispatch_search.go) decodes several starting orders (earliest due date
// with the priority's weight, first come first served, least slack,
// priority first) under every tie rule, every order of a day of at most
// five jobs, and improves the best by moving late jobs forward, within a
// budget of placements, keeping the best plan by the objective: fewest
// unplaced steps, then least weighted late minutes, then the earliest last
// completion.

import (
	"context"
	"math"
	"time"
)

// DispatchInput is what a location's plan is computed from.
type DispatchInput struct {
	Calendar  Calendar      // the location's working time (NewCalendar(zone, settings))
	Now       time.Time     // the plan starts at Now rounded up to the next whole minute
	BayBuffer time.Duration // working time kept free in a bay between steps of different jobs
	Techs     []DispatchTech
	Bays      []DispatchBay
	Jobs      []DispatchJob // the open jobs, in any order
	// Budget is the search's effort in steps placed (a whole plan places
	// every open step once); 0 is the default (DefaultDispatchBudget
	// scaled to the plan's size), negative plans the first-come-first-served order only.
	Budget int
	// Anchor is the plan this one stays near (dispatch_anchor.go); nil:
	// none.
	Anchor *DispatchAnchor
}

// DispatchTech is a technician as the planner sees them.
type DispatchTech struct {
	ID          string
	Skills      []string
	Unavailable bool // status unavailable: the planner gives them nothing new
	// Work is their own working time: weekly hours and absences
	// (worktime.go).
	Work WorkTime
}

// DispatchBay is a bay as the planner sees it.
type DispatchBay struct {
	ID          string
	Services    []string // service codes it takes; empty: any
	Maintenance bool
	// Work is its own working time: its maintenance windows (worktime.go).
	Work WorkTime
}

// DispatchJob is an open job with every step.
type DispatchJob struct {
	ID          string
	Priority    string     // low normal high urgent
	PromiseTime *time.Time // nil: none
	ArrivalTime *time.Time // nil: a booking not arrived yet
	// ExpectedArrival is a booking's drop-off time (nil: none): its steps
	// start no earlier.
	ExpectedArrival *time.Time
	CreatedAt       time.Time
	Steps           []DispatchStep // every step, completed ones too, by (phase, createdAt, id)
}

// DispatchStep is a step of an open job.
type DispatchStep struct {
	ID                     string
	Phase                  int
	Mode                   string // "parallel", or sequential
	Duration               time.Duration
	Status                 string   // pending, in_progress, completed
	TechIDs                []string // assigned
	BayID                  string   // assigned; "" none
	ServiceCode            string   // "" none
	RequiredSkills         []string
	StartedAt, CompletedAt *time.Time
	CreatedAt              time.Time // orders scheduled steps of one notBefore
	// NotBefore is the earliest the step may start (nil: the planner
	// chooses); with its technicians and bay it makes a pending step
	// scheduled (contract section 8, "Scheduling a step at a time").
	NotBefore *time.Time
	// Spread is how much its duration varies (DurationSpread; 0: not
	// known): a confident quote's margin counts it (confidence.go).
	Spread time.Duration
}

// Dispatch is a location's plan.
type Dispatch struct {
	Start    time.Time
	Steps    []PlannedStep // by start, then job order
	Unplaced []UnplacedStep
	Jobs     []JobOutlook // one per input job, in input order
	Totals   DispatchTotals
}

// PlannedStep is a step of the plan.
type PlannedStep struct {
	StepID, JobID string
	TechIDs       []string
	BayID         string // "" none
	Start, End    time.Time
	Pinned        bool       // in progress, or assigned before: it keeps its technicians and bay
	NotBefore     *time.Time // the step's, in the location's zone
}

// UnplacedStep is a step the plan could not place, with why.
type UnplacedStep struct {
	StepID, JobID, Reason string
	// BlockedBy is, with UnplacedAfter only, the first (in phase, then
	// creation order) of the steps it waits for that are unplaced with a
	// reason of their own.
	BlockedBy string
}

// Reasons a step is unplaced. A step's own want of a technician or a bay
// comes first; a step that could be placed but waits for an unplaced step
// of its job is UnplacedAfter.
const (
	UnplacedNoTechnician = "no_qualified_technician"
	UnplacedNoBay        = "no_suitable_bay"
	UnplacedBeyond       = "beyond_horizon"
	UnplacedAfter        = "after_unplaced_step"
	// UnplacedAssigned: a person assigned the step to a technician who is
	// unavailable or to a bay in maintenance; it waits for the assignment
	// or the status to change rather than being planned there silently.
	UnplacedAssigned = "assigned_unavailable"
)

// JobOutlook is what the plan says of a job's promise.
type JobOutlook struct {
	JobID               string
	PromiseTime         *time.Time
	ProjectedCompletion *time.Time // nil when a step is unplaced
	AtRisk              bool       // late, or a step unplaced
	LateMinutes         int        // wall-clock minutes past the promise, rounded up
}

// DispatchTotals sum a plan up.
type DispatchTotals struct{ LateJobs, WeightedLateMinutes, PlacedSteps, UnplacedSteps int }

// DispatchHorizon is how far past its start a plan places work.
const DispatchHorizon = 14 * 24 * time.Hour

// DefaultDispatchBudget is the steps the search places by default for 80
// jobs of 4 steps (smaller plans get a share in proportion, sizedBudget):
// enough to improve a day of 80 jobs markedly, few enough to plan it in
// well under 200 ms on two cores (docs/benchmarks.md).
const DefaultDispatchBudget = 10000

// PriorityWeight is a priority's weight in weighted lateness.
func PriorityWeight(priority string) int {
	switch priority {
	case "low":
		return 1
	case "high":
		return 4
	case "urgent":
		return 8
	}
	return 2
}

// DispatchStart is when a plan made of in starts: now rounded up to the
// next whole minute. A location has one plan, whatever day is looked at.
func DispatchStart(in DispatchInput) time.Time {
	now := in.Now.Truncate(time.Minute)
	if now.Before(in.Now) {
		now = now.Add(time.Minute)
	}
	return now
}

// PlanDispatch plans the location's open steps.
func PlanDispatch(in DispatchInput) Dispatch {
	d, _ := PlanDispatchContext(context.Background(), in)
	return d
}

// PlanDispatchContext plans the location's open steps unless ctx ends
// first: a plan nobody waits for any more stops between two decodes and
// answers ctx's error.
func PlanDispatchContext(ctx context.Context, in DispatchInput) (Dispatch, error) {
	p := newProblem(in)
	p.done = ctx.Done()
	best := p.search(in.Budget)
	if err := ctx.Err(); err != nil {
		return Dispatch{}, err
	}
	return p.dispatch(best), nil
}

// LateMinutes is how many wall-clock minutes, rounded up, end is past
// promise: 0 without a promise or when end is not past it. It is the
// lateness every plan, bound and report counts. Past time.Duration's 292
// years it counts in microseconds, which hold any two times of years 1 to
// 9999 apart: never negative, never cut off.
func LateMinutes(promise *time.Time, end time.Time) int {
	if promise == nil || !end.After(*promise) {
		return 0
	}
	if d := end.Sub(*promise); d < math.MaxInt64 { // Sub saturates
		return minutesUp(d)
	}
	return microsLateMinutes(end.UnixMicro(), promise.UnixMicro())
}

// microsLateMinutes is LateMinutes of Unix microseconds.
func microsLateMinutes(end, promise int64) int {
	const minute = int64(time.Minute / time.Microsecond)
	if end <= promise {
		return 0
	}
	return int((end - promise + minute - 1) / minute)
}

// minutesUp is d in whole minutes, rounded up; 0 when d is not positive.
func minutesUp(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Minute - 1) / time.Minute)
}
