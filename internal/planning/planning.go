// Package planning computes locations' dispatch plans (contract section 8)
// from the store with the domain's planner, keeps them while they are the
// plan, and watches the promises they make (watch.go).
//
// A location has one plan: it starts now and covers 14 days, and every day
// shown (the plan read for a date, the dispatch page's days) is a slice of
// it. A plan depends on the location's data and on the minute it is
// computed in (its start is now rounded up to the minute), so a plan is
// kept per location and minute, and served while the location's plan version
// (moved by triggers on every change to what the plan reads) is the one it
// was computed at: the plan read, the job detail's promise and the promise
// watch of one minute and one version are one computation, and never
// disagree.
package planning

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Store is what planning reads.
type Store interface {
	PlanVersion(ctx context.Context, locationID string) (int64, error)
	PlanData(ctx context.Context, locationID string) (store.PlanData, error)
	JobDetail(ctx context.Context, v store.Visibility, id string) (store.JobDetailInput, error)
	DurationStats(ctx context.Context, locationID string, version int64, now time.Time) (map[string]workshop.DurationStats, error)
	PlanAnchors(ctx context.Context, locationID string) (current, previous *store.PlanAnchor, err error)
	SavePlanAnchor(ctx context.Context, locationID string, a store.PlanAnchor) error
	AssignSteps(ctx context.Context, v store.Visibility, locationID string, version int64, as []store.StepAssignment,
		now workshop.Micros) ([]workshop.Step, error)
}

// Plan is a location's computed plan with what it was computed from.
type Plan struct {
	LocationID string
	Version    int64 // the plan version of the data it was computed from
	Zone       *time.Location
	Settings   workshop.Settings
	// Input is what the planner was given. Its Calendar is the planner's
	// own: ask FreshInput for one to ask anything else, since a compiled
	// calendar belongs to one goroutine.
	Input    workshop.DispatchInput
	Dispatch workshop.Dispatch
	// Durations are the location's learned durations by service code as
	// the plan used them (contract section 9).
	Durations map[string]workshop.DurationStats
	// PlanningDurations is the setting the plan's durations follow: the
	// location's, or p50 for the plan a confident quote is made on.
	PlanningDurations string
	// Minute is the minute it was computed in (Unix minutes of its start
	// rounded up): with Version, what orders it among anchors (anchor.go).
	Minute int64
	// stepVersions are the updatedAt of the steps it planned, for the
	// anchor it may become; anchored is set once it is stored as one.
	stepVersions map[string]workshop.Micros
	anchored     atomic.Bool
}

// PlanningMinutes is the duration the plan gives a step of catalog item
// code that is not completed (workshop.PlanningMinutes), so that an
// availability quote plans new work as the plan does.
func (p *Plan) PlanningMinutes(code string, stepEstimate, itemEstimate int) int {
	return workshop.PlanningMinutes(p.PlanningDurations, stepEstimate, itemEstimate, p.Durations[code])
}

// FreshInput is the plan's input with a calendar of its own, for one
// goroutine's further questions (an availability quote).
func (p *Plan) FreshInput() workshop.DispatchInput {
	in := p.Input
	in.Calendar = workshop.NewCalendar(p.Zone, p.Settings)
	return in
}

// Service computes and keeps plans. It is safe for concurrent use.
type Service struct {
	store Store

	mu       sync.Mutex
	plans    map[planKey]*Plan
	inflight map[planKey]*call
	bytes    int // the kept plans' estimated size (Plan.size)
	maxBytes int
	// hits and misses count the plans asked for: kept (or computed by
	// another request meanwhile) or computed.
	hits, misses int64
}

type planKey struct {
	location string
	minute   int64  // the plan's start minute (Unix minutes of now rounded up)
	variant  string // "": the location's plan; else the planningDurations it is planned with (a quote's)
}

// call is a computation in flight, which requests for the same plan wait
// for instead of computing it again.
type call struct {
	done chan struct{}
	plan *Plan
	err  error
}

// DefaultCacheBytes bounds the plans kept by their estimated memory, not
// their number (issue 30: a count of 1,024 turned over every minute past
// 1,000 locations): past it the oldest minute's are dropped (a plan of an
// earlier minute is never asked for again). 64 MiB holds about 1,500 plans
// of 20 jobs of 3 steps, or 300 of 80 jobs of 4 (Plan.size); the plans of
// one minute are the ones asked for again, and the promise watch plans a
// location at rest only every few minutes.
const DefaultCacheBytes = 64 << 20

// New is a planning service over st keeping DefaultCacheBytes of plans.
func New(st Store) *Service {
	return &Service{store: st, plans: map[planKey]*Plan{}, inflight: map[planKey]*call{}, maxBytes: DefaultCacheBytes}
}

// Plan is the location's plan as of now: the kept one while the
// location's plan version has not moved, else computed afresh. A
// computation stops when ctx ends; a request waiting for another's
// computation that stopped so computes it itself.
func (s *Service) Plan(ctx context.Context, locationID string, now time.Time) (*Plan, error) {
	return s.plan(ctx, planKey{location: locationID, minute: startMinute(now)}, now)
}

// plan is the plan of key as of now, kept or computed.
func (s *Service) plan(ctx context.Context, key planKey, now time.Time) (*Plan, error) {
	locationID := key.location
	version, err := s.store.PlanVersion(ctx, locationID)
	if err != nil {
		return nil, err
	}
	for {
		s.mu.Lock()
		if p, ok := s.plans[key]; ok && p.Version >= version {
			s.hits++
			s.mu.Unlock()
			return p, nil
		}
		if c, ok := s.inflight[key]; ok {
			s.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if c.err == nil && c.plan.Version >= version {
				s.mu.Lock()
				s.hits++
				s.mu.Unlock()
				return c.plan, nil
			}
			continue // it failed, or read older data than this request must see
		}
		c := &call{done: make(chan struct{})}
		s.inflight[key] = c
		s.misses++
		s.mu.Unlock()
		c.plan, c.err = s.compute(ctx, key, now)
		s.mu.Lock()
		delete(s.inflight, key)
		if c.err == nil {
			s.keep(key, c.plan)
		}
		s.mu.Unlock()
		close(c.done)
		return c.plan, c.err
	}
}

// keep remembers a plan and, while the kept plans' size passes maxBytes,
// drops the oldest minute's (of this minute's, as many as it takes). s.mu
// is held.
func (s *Service) keep(key planKey, p *Plan) {
	if old, ok := s.plans[key]; ok {
		s.bytes -= old.size()
	}
	s.plans[key] = p
	s.bytes += p.size()
	for s.bytes > s.maxBytes && len(s.plans) > 1 {
		oldest := key.minute
		for k := range s.plans {
			if k != key {
				oldest = min(oldest, k.minute)
			}
		}
		for k, kept := range s.plans {
			if k == key || k.minute != oldest {
				continue
			}
			if oldest == key.minute && s.bytes <= s.maxBytes {
				break
			}
			s.bytes -= kept.size()
			delete(s.plans, k)
		}
	}
}

// CacheStats is the plan cache at a moment.
type CacheStats struct {
	Hits, Misses int64
	Plans, Bytes int
}

// CacheStats reads the plan cache's counters.
func (s *Service) CacheStats() CacheStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return CacheStats{Hits: s.hits, Misses: s.misses, Plans: len(s.plans), Bytes: s.bytes}
}

// compute reads the location's data and plans it.
func (s *Service) compute(ctx context.Context, key planKey, now time.Time) (*Plan, error) {
	d, err := s.store.PlanData(ctx, key.location)
	if err != nil {
		return nil, err
	}
	return s.planOf(ctx, d, key, now, nil)
}

// planOf plans d as of now from the location's anchor. written, when not
// nil, says d is changed from what is stored (a preview's): the anchor
// does not hold the steps written to, and nothing is unchanged since it.
func (s *Service) planOf(ctx context.Context, d store.PlanData, key planKey, now time.Time, written map[string]bool) (*Plan, error) {
	locationID := key.location
	zone, err := workshop.LoadZone(d.Timezone)
	if err != nil {
		return nil, err
	}
	p := &Plan{LocationID: locationID, Version: d.Version, Zone: zone, Settings: d.Settings,
		PlanningDurations: cmp.Or(key.variant, d.Settings.PlanningDurations), Minute: startMinute(now), stepVersions: stepVersionsOf(d)}
	if p.Durations, err = s.store.DurationStats(ctx, locationID, d.DurationVersion, now); err != nil {
		return nil, err
	}
	for id := range written {
		delete(p.stepVersions, id) // any write to a step frees it
	}
	p.Input = inputOf(d, p, zone, now)
	if p.Input.Anchor, err = s.anchorFor(ctx, p); err != nil {
		return nil, err
	}
	if written != nil && p.Input.Anchor != nil {
		p.Input.Anchor.Unchanged = false // what is planned is not what is stored
	}
	if p.Dispatch, err = workshop.PlanDispatchContext(ctx, p.Input); err != nil {
		return nil, err
	}
	return p, nil
}

// Day is the plan's local day of date (YYYY-MM-DD), from today to 13 days
// after it, at now (workshop.PlanDay): the steps shown for it are
// Dispatch.StepsOn that day.
func (p *Plan) Day(date string, now time.Time) (time.Time, error) {
	return workshop.PlanDay(date, now, p.Zone)
}

// startMinute is the minute a plan made at now starts from: now rounded up
// to the next whole minute.
func startMinute(now time.Time) int64 {
	m := now.Unix() / 60
	if now.Truncate(time.Minute).Before(now) {
		m++
	}
	return m
}

// inputOf is the planner's input from the store's data, with the steps'
// durations as the plan p gives them.
func inputOf(d store.PlanData, p *Plan, zone *time.Location, now time.Time) workshop.DispatchInput {
	in := workshop.DispatchInput{Calendar: workshop.NewCalendar(zone, d.Settings), Now: now, BayBuffer: d.Settings.BayBuffer()}
	techAway, bayAway := timeAway(d, now)
	for _, t := range d.Techs {
		in.Techs = append(in.Techs, workshop.DispatchTech{ID: t.ID, Skills: t.Skills, Unavailable: t.Status == "unavailable",
			Work: workshop.WorkTime{Hours: t.WorkingHours, Away: techAway[t.ID]}})
	}
	for _, b := range d.Bays {
		in.Bays = append(in.Bays, workshop.DispatchBay{ID: b.ID, Services: b.Services, Maintenance: b.Status == "maintenance",
			Work: workshop.WorkTime{Away: bayAway[b.ID]}})
	}
	for _, j := range d.Jobs {
		dj := workshop.DispatchJob{ID: j.ID, Priority: j.Priority, CreatedAt: j.CreatedAt.Time(), ExpectedArrival: j.ExpectedArrival}
		if j.PromiseTime != nil {
			t := j.PromiseTime.Time
			dj.PromiseTime = &t
		}
		if j.ArrivalTime != nil {
			t := j.ArrivalTime.Time
			dj.ArrivalTime = &t
		}
		for _, st := range j.Steps {
			ds := stepOf(st, d.Skills)
			if estimate, ok := d.Estimates[ds.ServiceCode]; ok && st.Status != workshop.StepCompleted {
				ds.Duration = time.Duration(p.PlanningMinutes(ds.ServiceCode, st.EstimatedDuration, estimate)) * time.Minute
				ds.Spread = workshop.DurationSpread(p.Durations[ds.ServiceCode])
			}
			dj.Steps = append(dj.Steps, ds)
		}
		in.Jobs = append(in.Jobs, dj)
	}
	return in
}

// timeAway are the absences by technician and the maintenance windows by
// bay that reach into the plan's span (from a day before now: a step in
// progress may have begun then).
func timeAway(d store.PlanData, now time.Time) (techs, bays map[string][]workshop.Interval) {
	from, to := now.Add(-24*time.Hour), now.Add(workshop.DispatchHorizon+3*24*time.Hour)
	techs, bays = map[string][]workshop.Interval{}, map[string][]workshop.Interval{}
	for _, a := range d.Absences {
		if a.End.After(from) && a.Start.Before(to) {
			techs[a.TechID] = append(techs[a.TechID], workshop.Interval{Start: a.Start, End: a.End})
		}
	}
	for _, w := range d.MaintenanceWindows {
		if w.End.After(from) && w.Start.Before(to) {
			bays[w.BayID] = append(bays[w.BayID], workshop.Interval{Start: w.Start, End: w.End})
		}
	}
	return techs, bays
}

func stepOf(st workshop.Step, skills map[string][]string) workshop.DispatchStep {
	ds := workshop.DispatchStep{ID: st.ID, Phase: st.Phase, Mode: st.SchedulingMode,
		Duration: time.Duration(st.EstimatedDuration) * time.Minute, Status: st.Status, TechIDs: st.TechIDs, CreatedAt: st.CreatedAt.Time()}
	if st.NotBefore != nil {
		t := st.NotBefore.Time
		ds.NotBefore = &t
	}
	if st.BayID != nil {
		ds.BayID = *st.BayID
	}
	if st.ServiceCode != nil {
		ds.ServiceCode = *st.ServiceCode
		ds.RequiredSkills = skills[*st.ServiceCode]
	}
	if st.StartedAt != nil {
		t := st.StartedAt.Time()
		ds.StartedAt = &t
	}
	if st.CompletedAt != nil {
		t := st.CompletedAt.Time()
		ds.CompletedAt = &t
	}
	return ds
}
