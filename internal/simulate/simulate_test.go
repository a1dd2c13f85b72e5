package simulate

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func small(seed uint64) Config {
	c := DefaultConfig()
	c.Seed, c.Days, c.JobsPerDay = seed, 2, 12
	return c
}

// TestRunIsDeterministic: the same config gives the same report, whatever
// the runs' interleaving; another seed another.
func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	a, err := Run(small(3), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(small(3), nil, nil)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed 3 twice: got %+v then %+v", a, b)
	}
	if c, _ := Run(small(4), nil, nil); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 3 and 4 gave the same report %+v", a)
	}
	if got, want := len(a.Policies), len(Policies)*len(workshop.PlanningDurationsValues); got != want {
		t.Fatalf("rows: got %d, want %d", got, want)
	}
	for _, r := range a.Policies {
		for name, v := range map[string]float64{"promisesKept": r.PromisesKept, "utilisation": r.Utilisation, "churn": r.Churn} {
			if v < 0 || v > 1 {
				t.Errorf("%s/%s: %s %v, want a fraction", r.Policy, r.Durations, name, v)
			}
		}
		if r.MeanQuoteMinutes <= 0 || r.MeanLeadMinutes <= 0 {
			t.Errorf("%s/%s: quote %v lead %v, want both positive", r.Policy, r.Durations, r.MeanQuoteMinutes, r.MeanLeadMinutes)
		}
	}
}

// TestSmallRun: a day of few customers under every policy serves every
// customer who came, on qualified technicians and suitable bays, one step
// at a time each, in working time, and in precedence order.
func TestSmallRun(t *testing.T) {
	t.Parallel()
	c := small(11)
	w, err := NewWorkshop(c)
	if err != nil {
		t.Fatal(err)
	}
	days := Days(c, w)
	for _, policy := range Policies {
		for _, durations := range workshop.PlanningDurationsValues {
			r := newRun(w, days, policy, durations)
			r.simulate()
			checkServed(t, policy+"/"+durations, r)
		}
	}
}

func checkServed(t *testing.T, what string, r *run) {
	t.Helper()
	techUse, bayUse := map[string][][2]time.Time{}, map[string][][2]time.Time{}
	for _, j := range r.jobs {
		if j.cancelled {
			continue
		}
		if j.ready.IsZero() {
			t.Errorf("%s: job %s never ready", what, j.spec.ID)
			continue
		}
		for _, s := range j.steps {
			if s.start.Before(j.spec.Arrival) || !r.w.Calendar.Open(s.start) {
				t.Errorf("%s: step %s starts %v: before its arrival %v or out of working time", what, s.spec.ID, s.start, j.spec.Arrival)
			}
			tech := r.tech(s.tech)
			if tech == nil || !hasAll(tech.Skills, s.service.Skills) {
				t.Errorf("%s: step %s (%v) on technician %q", what, s.spec.ID, s.service.Skills, s.tech)
			}
			if i := slices.IndexFunc(r.w.Bays, func(b Bay) bool { return b.ID == s.bay }); i < 0 ||
				(len(r.w.Bays[i].Services) > 0 && !slices.Contains(r.w.Bays[i].Services, s.service.Code)) {
				t.Errorf("%s: step %s (%s) in bay %q", what, s.spec.ID, s.service.Code, s.bay)
			}
			for _, q := range j.steps {
				if q == s {
					break
				}
				if waits := q.spec.Phase < s.spec.Phase || (q.spec.Mode != "parallel" && s.spec.Mode != "parallel"); waits && s.start.Before(q.end) {
					t.Errorf("%s: step %s starts %v before %s ends %v", what, s.spec.ID, s.start, q.spec.ID, q.end)
				}
			}
			techUse[s.tech] = append(techUse[s.tech], [2]time.Time{s.start, s.end})
			bayUse[s.bay] = append(bayUse[s.bay], [2]time.Time{s.start, s.end})
		}
	}
	for _, use := range []map[string][][2]time.Time{techUse, bayUse} {
		for id, list := range use {
			for i := range list {
				for k := i + 1; k < len(list); k++ {
					if list[i][0].Before(list[k][1]) && list[k][0].Before(list[i][1]) {
						t.Errorf("%s: %s holds two steps at once: %v and %v", what, id, list[i], list[k])
					}
				}
			}
		}
	}
}

// TestGenerator: the generated workshop and days are the documented ones.
func TestGenerator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		change             func(*Config)
		techs, bays, hired int
	}{
		{name: "default", change: func(*Config) {}, techs: 8, bays: 5},
		{name: "hire a diagnostics technician", change: func(c *Config) { c.Hire = [][]string{{"diagnostics"}} }, techs: 9, bays: 5, hired: 1},
		{name: "a bay for anything", change: func(c *Config) { c.AddBays = [][]string{nil} }, techs: 8, bays: 6},
		{name: "a small shop", change: func(c *Config) { c.Technicians, c.Bays, c.Services = 2, 1, 3 }, techs: 2, bays: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			c.Seed, c.Days = 5, 20
			tt.change(&c)
			w, err := NewWorkshop(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Techs) != tt.techs || len(w.Bays) != tt.bays {
				t.Errorf("got %d technicians and %d bays, want %d and %d", len(w.Techs), len(w.Bays), tt.techs, tt.bays)
			}
			for _, s := range w.Services {
				if s.Bias < 0.8 || s.Bias > 1.3 {
					t.Errorf("service %s: bias %v, want 0.8-1.3", s.Code, s.Bias)
				}
				if !slices.ContainsFunc(w.Techs, func(x Tech) bool { return hasAll(x.Skills, s.Skills) }) {
					t.Errorf("service %s (%v): no technician can do it", s.Code, s.Skills)
				}
			}
			for _, x := range w.Techs[:c.Technicians] {
				if x.Speed < 0.85 || x.Speed > 1.15 {
					t.Errorf("technician %s: speed %v, want 0.85-1.15", x.ID, x.Speed)
				}
			}
			if tt.hired > 0 && !slices.Contains(w.Techs[len(w.Techs)-1].Skills, "diagnostics") {
				t.Errorf("the hired technician: %+v", w.Techs[len(w.Techs)-1])
			}
			checkDays(t, c, w, Days(c, w))
		})
	}
}

func checkDays(t *testing.T, c Config, w *Workshop, days []Day) {
	t.Helper()
	if len(days) != c.Days {
		t.Fatalf("got %d days, want %d", len(days), c.Days)
	}
	var jobs, noShows, booked int
	for _, d := range days {
		if wd := d.Date.Weekday(); wd == time.Saturday || wd == time.Sunday {
			t.Errorf("a day with customers on %v", wd)
		}
		if n := len(d.Jobs); n < c.JobsPerDay-3 || n > c.JobsPerDay+3 {
			t.Errorf("%v: %d jobs, want %d±3", d.Date, n, c.JobsPerDay)
		}
		if a := d.Absence; a.Tech == "" || !a.To.After(a.From) || a.To.Sub(a.From) > 4*time.Hour {
			t.Errorf("%v: absence %+v, want a technician away 2 to 4 hours", d.Date, a)
		}
		for _, j := range d.Jobs {
			jobs++
			local := j.Expected.In(w.Zone)
			minutes := local.Hour()*60 + local.Minute()
			if minutes < arrivalsFrom || minutes > arrivalsUntil || j.Arrival.Before(j.Expected) {
				t.Errorf("job %s expected %v, arrives %v: want 07:30-15:00, never early", j.ID, local, j.Arrival)
			}
			if j.Booked {
				booked++
			}
			if j.NoShow {
				noShows++
			}
			if n := len(j.Steps); n < 1 || n > 4 {
				t.Errorf("job %s: %d steps, want 1-4", j.ID, n)
			}
			for _, s := range j.Steps {
				if w.service(s.Service) == nil || s.Noise <= 0 {
					t.Errorf("job %s step %+v", j.ID, s)
				}
			}
		}
	}
	if c.Days >= 20 && (noShows == 0 || noShows > jobs/10 || booked < jobs/4 || booked > jobs/2) {
		t.Errorf("%d jobs: %d booked, %d no-shows; want about 40 %% and 2 %% (5 %% of bookings)", jobs, booked, noShows)
	}
}
