// Package planning computes locations' dispatch plans (contract section 8)
// from the store with the domain's planner, keeps them while they are the
// plan, and watches the promises they make (watch.go).
//
// A plan depends on the location's data and on the minute it is computed
// in (its start is now rounded up to the minute), so a plan is kept per
// location, date and minute, and served while the location's plan version
// (moved by triggers on every change to what the plan reads) is the one it
// was computed at: the plan read, the job detail's promise and the promise
// watch of one minute and one version are one computation, and never
// disagree.
package planning

import (
	"context"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Store is what planning reads.
type Store interface {
	PlanVersion(ctx context.Context, locationID string) (int64, error)
	PlanData(ctx context.Context, locationID string) (store.PlanData, error)
	JobDetail(ctx context.Context, v store.Visibility, id string) (store.JobDetailInput, error)
	AssignSteps(ctx context.Context, v store.Visibility, locationID string, version int64, as []store.StepAssignment,
		now workshop.Micros) ([]workshop.Step, error)
}

// Plan is a location's computed plan with what it was computed from.
type Plan struct {
	LocationID string
	Date       string // the local date asked for, YYYY-MM-DD
	Version    int64  // the plan version of the data it was computed from
	Zone       *time.Location
	Settings   workshop.Settings
	// Input is what the planner was given. Its Calendar is the planner's
	// own: ask FreshInput for one to ask anything else, since a compiled
	// calendar belongs to one goroutine.
	Input    workshop.DispatchInput
	Dispatch workshop.Dispatch
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
}

type planKey struct {
	location, date string
	minute         int64 // the plan's start minute (Unix minutes of now rounded up)
}

// call is a computation in flight, which requests for the same plan wait
// for instead of computing it again.
type call struct {
	done chan struct{}
	plan *Plan
	err  error
}

// maxPlans bounds the plans kept: past it the oldest minute's are dropped
// (a plan of an earlier minute is never asked for again).
const maxPlans = 1024

// New is a planning service over st.
func New(st Store) *Service {
	return &Service{store: st, plans: map[planKey]*Plan{}, inflight: map[planKey]*call{}}
}

// Plan is the location's plan for date (YYYY-MM-DD in its zone; "" for
// today) as of now: the kept one while the location's plan version has not
// moved, else computed afresh.
func (s *Service) Plan(ctx context.Context, locationID, date string, now time.Time) (*Plan, error) {
	version, err := s.store.PlanVersion(ctx, locationID)
	if err != nil {
		return nil, err
	}
	key := planKey{location: locationID, date: date, minute: startMinute(now)}
	for {
		s.mu.Lock()
		if p, ok := s.plans[key]; ok && p.Version >= version {
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
				return c.plan, nil
			}
			continue // it failed, or read older data than this request must see
		}
		c := &call{done: make(chan struct{})}
		s.inflight[key] = c
		s.mu.Unlock()
		c.plan, c.err = s.compute(ctx, locationID, date, now)
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

// keep remembers a plan, dropping the oldest minutes' when full. s.mu is held.
func (s *Service) keep(key planKey, p *Plan) {
	if len(s.plans) >= maxPlans {
		oldest := key.minute
		for k := range s.plans {
			oldest = min(oldest, k.minute)
		}
		for k := range s.plans {
			if k.minute == oldest {
				delete(s.plans, k)
			}
		}
	}
	s.plans[key] = p
}

// compute reads the location's data and plans it.
func (s *Service) compute(ctx context.Context, locationID, date string, now time.Time) (*Plan, error) {
	d, err := s.store.PlanData(ctx, locationID)
	if err != nil {
		return nil, err
	}
	zone, err := workshop.LoadZone(d.Timezone)
	if err != nil {
		return nil, err
	}
	day, err := planDate(date, now, zone)
	if err != nil {
		return nil, err
	}
	p := &Plan{LocationID: locationID, Date: day.Format(time.DateOnly), Version: d.Version, Zone: zone, Settings: d.Settings}
	p.Input = inputOf(d, zone, day, now)
	p.Dispatch = workshop.PlanDispatch(p.Input)
	return p, nil
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

// planDate is local midnight of date in zone, or of today at now.
func planDate(date string, now time.Time, zone *time.Location) (time.Time, error) {
	if date == "" {
		y, m, d := now.In(zone).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, zone), nil
	}
	t, err := time.ParseInLocation(time.DateOnly, date, zone)
	if err != nil {
		return t, workshop.Invalid("date", "date %s is not a date: send one like 2026-11-21.", date)
	}
	return t, nil
}

// inputOf is the planner's input from the store's data.
func inputOf(d store.PlanData, zone *time.Location, day, now time.Time) workshop.DispatchInput {
	in := workshop.DispatchInput{Calendar: workshop.NewCalendar(zone, d.Settings), Now: now, Date: day,
		BayBuffer: d.Settings.BayBuffer()}
	for _, t := range d.Techs {
		in.Techs = append(in.Techs, workshop.DispatchTech{ID: t.ID, Skills: t.Skills, Unavailable: t.Status == "unavailable"})
	}
	for _, b := range d.Bays {
		in.Bays = append(in.Bays, workshop.DispatchBay{ID: b.ID, Services: b.Services, Maintenance: b.Status == "maintenance"})
	}
	for _, j := range d.Jobs {
		dj := workshop.DispatchJob{ID: j.ID, Priority: j.Priority, CreatedAt: j.CreatedAt.Time()}
		if j.PromiseTime != nil {
			t := j.PromiseTime.Time
			dj.PromiseTime = &t
		}
		if j.ArrivalTime != nil {
			t := j.ArrivalTime.Time
			dj.ArrivalTime = &t
		}
		for _, st := range j.Steps {
			dj.Steps = append(dj.Steps, stepOf(st, d.Skills))
		}
		in.Jobs = append(in.Jobs, dj)
	}
	return in
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
