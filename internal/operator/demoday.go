package operator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A demo job: a vehicle's visit with its steps, as it stands now. Its
// times are working time (the location's hours) before and after now, so
// that the day is one a workshop could have had, whenever the demo starts:
// at night it is the day that ended last, its work still open.
type demoJob struct {
	loc                   string
	plate, make_, model   string
	source, priority      string
	arrivedAgo, promiseIn time.Duration // 0: not arrived (booked) / no promise
	steps                 []demoStep
	end                   string // "", "deliver" or "cancel"
	// dropOffIn is a booking's drop-off time, working time after now (0:
	// none); customer is whom to call: name, phone and email.
	dropOffIn time.Duration
	customer  [3]string
}

// A demo step, done as far as its state says.
type demoStep struct {
	label     string
	phase     int
	minutes   int
	state     string // a step status
	tech, bay string // names in the demo seed; "" for none
}

// demoJobs is a working day: every job status at the Berlin location, a few
// jobs in Queens, steps in progress in bays with technicians.
var demoJobs = []demoJob{
	{loc: demoBerlinID, plate: "B-DM 1001", make_: "Volkswagen", model: "Golf", source: "phone", promiseIn: 12 * time.Hour,
		dropOffIn: 5 * time.Hour, customer: [3]string{"Hanna Schulz", "+49 30 5550 1001", "hanna.schulz@example.com"},
		steps: []demoStep{{label: "Annual service", minutes: 90}, {label: "Brake check", phase: 1, minutes: 30}}},
	{loc: demoBerlinID, plate: "B-DM 1002", make_: "Opel", model: "Corsa", source: "walk_in", arrivedAgo: 25 * time.Minute, promiseIn: 4 * time.Hour,
		customer: [3]string{"Murat Yilmaz", "+49 170 555 1002", ""},
		steps:    []demoStep{{label: "Diagnosis: engine warning light", minutes: 45}}},
	{loc: demoBerlinID, plate: "B-DM 1003", make_: "BMW", model: "320d", source: "dms", priority: "high", arrivedAgo: 3 * time.Hour, promiseIn: time.Hour,
		steps: []demoStep{
			{label: "Oil and filter change", minutes: 45, state: workshop.StepCompleted, tech: "Aylin Demir", bay: "Bay 2"},
			{label: "Front brake pads and discs", phase: 1, minutes: 120, state: workshop.StepInProgress, tech: "Jonas Weber", bay: "Bay 1"},
		}},
	{loc: demoBerlinID, plate: "B-DM 1004", make_: "Tesla", model: "Model 3", source: "app", arrivedAgo: 2 * time.Hour, promiseIn: 5 * time.Hour,
		steps: []demoStep{
			{label: "High-voltage battery inspection", minutes: 120, state: workshop.StepInProgress, tech: "Lukas Becker", bay: "EV Bay"},
			{label: "Software update", phase: 1, minutes: 30},
		}},
	{loc: demoBerlinID, plate: "B-DM 1005", make_: "Skoda", model: "Octavia", source: "dms", arrivedAgo: 5 * time.Hour, promiseIn: 2 * time.Hour,
		steps: []demoStep{
			{label: "Diagnosis: coolant loss", minutes: 30, state: workshop.StepCompleted, tech: "Jonas Weber"},
			{label: "Replace water pump (parts ordered)", phase: 1, minutes: 150},
		}},
	{loc: demoBerlinID, plate: "B-DM 1006", make_: "Audi", model: "A4", source: "web", arrivedAgo: 6 * time.Hour, promiseIn: 30 * time.Minute,
		steps: []demoStep{
			{label: "Tyre change", minutes: 45, state: workshop.StepCompleted, tech: "Aylin Demir", bay: "Bay 2"},
			{label: "Wheel alignment", phase: 1, minutes: 40, state: workshop.StepCompleted, tech: "Aylin Demir", bay: "Bay 1"},
		}},
	{loc: demoBerlinID, plate: "B-DM 1007", make_: "Ford", model: "Focus", source: "phone", arrivedAgo: 7 * time.Hour, end: "deliver",
		steps: []demoStep{{label: "Oil service", minutes: 45, state: workshop.StepCompleted, tech: "Aylin Demir", bay: "Bay 2"}}},
	{loc: demoBerlinID, plate: "B-DM 1008", make_: "Renault", model: "Clio", source: "phone", promiseIn: 20 * time.Hour, end: "cancel",
		dropOffIn: 9 * time.Hour, customer: [3]string{"Claire Dubois", "+49 30 5550 1008", "claire@example.com"},
		steps: []demoStep{{label: "Air conditioning service", minutes: 60}}},
	{loc: demoNewYorkID, plate: "NY ABC-1234", make_: "Toyota", model: "Camry", source: "walk_in", arrivedAgo: 90 * time.Minute, promiseIn: 2 * time.Hour,
		steps: []demoStep{{label: "Brake inspection", minutes: 45, state: workshop.StepInProgress, tech: "Maria Lopez", bay: "Bay A"}}},
	{loc: demoNewYorkID, plate: "NY KLM-5678", make_: "Honda", model: "Civic", source: "dms", arrivedAgo: 15 * time.Minute, promiseIn: 3 * time.Hour,
		steps: []demoStep{{label: "Tire rotation", minutes: 30}}},
	{loc: demoNewYorkID, plate: "NY XYZ-9012", make_: "Ford", model: "F-150", source: "phone", arrivedAgo: 4 * time.Hour, promiseIn: time.Hour,
		steps: []demoStep{{label: "Oil change", minutes: 30, state: workshop.StepCompleted, tech: "Dwayne Carter", bay: "Bay B"}}},
}

// demoCatalog is each location's standard services.
var demoCatalog = []workshop.CatalogItem{
	{ServiceCode: "OIL", Name: "Oil and filter change", EstimatedDuration: 45, RequiredSkills: []string{"oil"}},
	{ServiceCode: "BRAKES", Name: "Brake pads and discs", EstimatedDuration: 120, RequiredSkills: []string{"brakes"}},
	{ServiceCode: "TYRES", Name: "Tyre change", EstimatedDuration: 45, RequiredSkills: []string{"tyres"}},
	{ServiceCode: "ALIGN", Name: "Wheel alignment", EstimatedDuration: 40, RequiredSkills: []string{}},
	{ServiceCode: "HV_CHECK", Name: "High-voltage battery inspection", EstimatedDuration: 120, RequiredSkills: []string{"hv_battery"}},
}

// demoDay fills the freshly seeded demo with a working day as of now, through
// the same writes the API makes (so the outbox has its events): the
// catalog, every technician clocked in since the opening of the location's
// last working day, and demoJobs with their steps started, finished,
// delivered or cancelled at times in the past.
func (o *Operator) demoDay(ctx context.Context, seed store.DemoSeed) error {
	now := o.Now()
	v := store.Visibility{OrgID: DemoOrgID}
	techs, bays, cals := map[string]string{}, map[string]string{}, map[string]workshop.Calendar{}
	for _, l := range seed.Locations {
		z, err := workshop.LoadZone(l.Timezone)
		if err != nil {
			return err
		}
		settings, err := o.Store.Settings(ctx, l.ID)
		if err != nil {
			return err
		}
		cals[l.ID] = workshop.NewCalendar(z, settings)
	}
	for _, t := range seed.Technicians {
		techs[t.Name] = t.ID
	}
	for _, b := range seed.Bays {
		bays[b.LocationID+"/"+b.Name] = b.ID
	}
	for _, l := range seed.Locations {
		for _, it := range demoCatalog {
			it.ID, it.OrgID, it.LocationID, it.IsActive = workshop.NewID(workshop.PrefixCatalogItem), DemoOrgID, l.ID, true
			it.CreatedAt, it.UpdatedAt = workshop.MicrosOf(now), workshop.MicrosOf(now)
			if _, err := o.Store.PutCatalogItem(ctx, it); err != nil {
				return fmt.Errorf("catalog %s: %w", it.ServiceCode, err)
			}
		}
	}
	if err := o.demoCalendars(ctx, v, now, cals[demoBerlinID], techs, bays); err != nil {
		return err
	}
	for _, t := range seed.Technicians {
		if _, err := o.Store.ClockIn(ctx, v, t.ID, lastOpening(cals[t.LocationID], now)); err != nil {
			return fmt.Errorf("clock in %s: %w", t.Name, err)
		}
	}
	// Oldest first, so that the job numbers follow the day.
	jobs := slices.Clone(demoJobs)
	slices.SortStableFunc(jobs, func(a, b demoJob) int { return cmp.Compare(b.arrivedAgo, a.arrivedAgo) })
	for _, dj := range jobs {
		if err := o.demoJob(ctx, v, dj, now, cals[dj.loc], techs, bays); err != nil {
			return fmt.Errorf("demo job %s: %w", dj.plate, err)
		}
	}
	return nil
}

// demoCalendars gives Berlin a shop's calendars: Aylin works mornings
// only, Lukas is on vacation from Monday to Wednesday next week and Bay 1's
// lift is serviced next Thursday morning.
func (o *Operator) demoCalendars(ctx context.Context, v store.Visibility, now time.Time, cal workshop.Calendar, techs, bays map[string]string) error {
	var mornings []workshop.WeeklyHours
	for _, day := range workshop.Weekdays[:5] {
		mornings = append(mornings, workshop.WeeklyHours{Day: day, Start: "08:00", End: "13:00"})
	}
	if _, err := o.Store.SetTechnicianHours(ctx, v, techs["Aylin Demir"], mornings, workshop.MicrosOf(now)); err != nil {
		return fmt.Errorf("demo hours: %w", err)
	}
	local := now.In(cal.Zone)
	y, m, d := local.Date()
	monday := time.Date(y, m, d+7-(int(local.Weekday())+6)%7, 0, 0, 0, 0, cal.Zone) // next week's
	if _, err := o.Store.CreateAbsence(ctx, v, workshop.Absence{TechID: techs["Lukas Becker"], Start: monday, End: monday.AddDate(0, 0, 3),
		Reason: "vacation", Note: "Family holiday"}); err != nil {
		return fmt.Errorf("demo absence: %w", err)
	}
	thursday := monday.AddDate(0, 0, 3)
	if _, err := o.Store.CreateMaintenanceWindow(ctx, v, workshop.MaintenanceWindow{BayID: bays[demoBerlinID+"/Bay 1"],
		Start: thursday.Add(8 * time.Hour), End: thursday.Add(12 * time.Hour), Reason: "Lift inspection"}); err != nil {
		return fmt.Errorf("demo maintenance window: %w", err)
	}
	return nil
}

// lastOpening is when the location's last working day before now opened
// (today's opening while it is open).
func lastOpening(cal workshop.Calendar, now time.Time) time.Time {
	y, m, d := cal.SubtractWork(now, time.Nanosecond).Date()
	return cal.NextOpen(time.Date(y, m, d, 0, 0, 0, 0, cal.Zone))
}

// demoJob creates one demo job and plays its steps forward: from 10
// minutes after the arrival, each step done in its estimated time with 5
// minutes between steps, all in working time.
func (o *Operator) demoJob(ctx context.Context, v store.Visibility, dj demoJob, now time.Time, cal workshop.Calendar, techs, bays map[string]string) error {
	zone := cal.Zone
	arrived := cal.SubtractWork(now, dj.arrivedAgo).Truncate(time.Second)
	created := arrived.Add(-time.Hour) // booked an hour before arriving (or, booked only, an hour ago)
	j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: DemoOrgID, LocationID: dj.loc, VehiclePlate: &dj.plate,
		VehicleMake: &dj.make_, VehicleModel: &dj.model, Priority: "normal", Source: dj.source,
		CreatedAt: workshop.MicrosOf(created), UpdatedAt: workshop.MicrosOf(created), Steps: []workshop.Step{}}
	if dj.priority != "" {
		j.Priority = dj.priority
	}
	if dj.promiseIn > 0 {
		j.PromiseTime = &workshop.OffsetTime{Time: cal.AddWork(now, dj.promiseIn).In(zone).Truncate(time.Minute)}
	}
	if dj.dropOffIn > 0 {
		t := cal.AddWork(now, dj.dropOffIn).In(zone).Truncate(15 * time.Minute)
		j.ExpectedArrival = &t
	}
	for i, p := range []**string{&j.CustomerName, &j.CustomerPhone, &j.CustomerEmail} {
		if dj.customer[i] != "" {
			*p = &dj.customer[i]
		}
	}
	cursor := now
	if dj.arrivedAgo > 0 {
		j.ArrivalTime = &workshop.OffsetTime{Time: arrived.In(zone)}
		cursor = cal.AddWork(arrived, 10*time.Minute)
	}
	res, err := o.Store.CreateJob(ctx, j, false)
	if err != nil {
		return err
	}
	j = res.Job
	for _, ds := range dj.steps {
		st, err := o.Store.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.ID, Label: ds.label,
			Phase: ds.phase, SchedulingMode: "sequential", EstimatedDuration: ds.minutes, TechIDs: []string{}, Status: workshop.StepPending,
			CreatedAt: workshop.MicrosOf(created), UpdatedAt: workshop.MicrosOf(created)})
		if err != nil {
			return err
		}
		if ds.state == "" || ds.state == workshop.StepPending {
			continue
		}
		started := workshop.StepInProgress
		p := store.StepPatch{UpdatedAt: st.UpdatedAt, Status: &started}
		if ds.tech != "" {
			p.TechIDs = &[]string{techs[ds.tech]}
		}
		if ds.bay != "" {
			bayID := bays[dj.loc+"/"+ds.bay]
			bay := &bayID
			p.BayID = &bay
		}
		if st, err = o.Store.PatchStep(ctx, v, j.ID, st.ID, p, workshop.MicrosOf(cursor)); err != nil {
			return err
		}
		if ds.state == workshop.StepCompleted {
			cursor = cal.AddWork(cursor, time.Duration(ds.minutes)*time.Minute)
			done := workshop.StepCompleted
			if _, err := o.Store.PatchStep(ctx, v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, Status: &done}, workshop.MicrosOf(cursor)); err != nil {
				return err
			}
			cursor = cal.AddWork(cursor, 5*time.Minute)
		}
	}
	switch dj.end {
	case "deliver":
		_, err = o.Store.DeliverJob(ctx, v, j.ID, workshop.MicrosOf(cursor))
	case "cancel":
		_, err = o.Store.CancelJob(ctx, v, j.ID, []string{"customer_declined"}, workshop.MicrosOf(cal.SubtractWork(now, 30*time.Minute)))
	}
	return err
}
