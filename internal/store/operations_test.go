package store_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// locationIn makes a location of the env's organisation in a zone.
func locationIn(t *testing.T, e env, tz string) workshop.Location {
	t.Helper()
	l, err := e.st.CreateLocation(t.Context(), workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: e.org.ID,
		Name: tz, Timezone: tz, CurrencyCode: "EUR", CreatedAt: at(0), UpdatedAt: at(0)}, workshop.DefaultSettings())
	if err != nil {
		t.Fatalf("CreateLocation: %v", err)
	}
	return l
}

func technicianIn(t *testing.T, e env, loc workshop.Location) workshop.Technician {
	t.Helper()
	tech, err := e.st.CreateTechnician(t.Context(), workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: e.org.ID,
		LocationID: loc.ID, Name: "Tech", Skills: []string{}, WIPLimit: 2, Status: "available", CreatedAt: at(0), UpdatedAt: at(0)})
	if err != nil {
		t.Fatalf("CreateTechnician: %v", err)
	}
	return tech
}

// Attendance is recorded in the location's local time: the offset at that
// instant (across daylight-saving changes) and the local date of the clock-in.
func TestAttendanceLocalTimes(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		name, tz     string
		in, out      time.Time
		wantIn       string
		wantOut      string
		wantWorkDate string
	}{
		{"Berlin before spring forward", "Europe/Berlin", utc("2026-03-29T00:30:00Z"), utc("2026-03-29T01:30:00Z"),
			"2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00", "2026-03-29"},
		{"Berlin autumn fall back", "Europe/Berlin", utc("2026-10-25T00:30:00Z"), utc("2026-10-25T01:30:00Z"),
			"2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00", "2026-10-25"},
		{"New York spring forward", "America/New_York", utc("2026-03-08T06:30:00Z"), utc("2026-03-08T07:30:00Z"),
			"2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-08"},
		{"New York fall back", "America/New_York", utc("2026-11-01T05:30:00Z"), utc("2026-11-01T06:30:00Z"),
			"2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-01"},
		{"night shift over local midnight", "America/New_York", utc("2026-06-10T02:00:00Z"), utc("2026-06-10T10:00:00Z"),
			"2026-06-09T22:00:00-04:00", "2026-06-10T06:00:00-04:00", "2026-06-09"},
	}
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, c := range cases {
			loc := locationIn(t, e, c.tz)
			tech := technicianIn(t, e, loc)
			v := store.Visibility{OrgID: e.org.ID}
			in, err := e.st.ClockIn(t.Context(), v, tech.ID, c.in)
			if err != nil {
				t.Fatalf("%s: ClockIn: %v", c.name, err)
			}
			if got := in.ClockIn.String(); got != c.wantIn {
				t.Errorf("%s: clockIn = %s, want %s", c.name, got, c.wantIn)
			}
			if in.WorkDate != c.wantWorkDate {
				t.Errorf("%s: workDate = %s, want %s", c.name, in.WorkDate, c.wantWorkDate)
			}
			out, err := e.st.ClockOut(t.Context(), v, tech.ID, c.out)
			if err != nil {
				t.Fatalf("%s: ClockOut: %v", c.name, err)
			}
			if out.ClockOut == nil || out.ClockOut.String() != c.wantOut {
				t.Errorf("%s: clockOut = %v, want %s", c.name, out.ClockOut, c.wantOut)
			}
			if out.WorkDate != c.wantWorkDate {
				t.Errorf("%s: workDate after clock-out = %s, want %s", c.name, out.WorkDate, c.wantWorkDate)
			}
			page, err := e.st.AttendanceRecords(t.Context(), store.AttendanceFilter{Visibility: v, TechID: tech.ID,
				From: c.wantWorkDate, To: c.wantWorkDate}, workshop.PageRequest{Limit: 10})
			if err != nil || len(page.Data) != 1 || page.Data[0].ID != in.ID {
				t.Errorf("%s: list by work date = %v (%v), want the record", c.name, page.Data, err)
			}
		}
	})
}

func TestAttendanceRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		tech := technicianIn(t, e, e.loc)
		v := store.Visibility{OrgID: e.org.ID}
		_, err := e.st.ClockOut(t.Context(), v, tech.ID, t0)
		wantCode(t, err, workshop.CodeNotClockedIn)
		if _, err := e.st.ClockIn(t.Context(), v, tech.ID, t0); err != nil {
			t.Fatalf("ClockIn: %v", err)
		}
		_, err = e.st.ClockIn(t.Context(), v, tech.ID, t0.Add(time.Minute))
		wantCode(t, err, workshop.CodeAlreadyClockedIn)
		got, err := e.st.Technician(t.Context(), v, tech.ID)
		if err != nil || !got.ClockedIn {
			t.Errorf("technician clockedIn = %v (%v), want true", got.ClockedIn, err)
		}
		_, err = e.st.ClockOut(t.Context(), v, tech.ID, t0.Add(-time.Hour))
		wantInvalid(t, err, "at")
		other := locationIn(t, e, "Europe/Paris")
		_, err = e.st.ClockIn(t.Context(), store.Visibility{OrgID: e.org.ID, LocationID: other.ID}, tech.ID, t0)
		wantCode(t, err, workshop.CodeNotFound)
		// Day close does not block attendance.
		if _, err := e.st.StartDayClose(t.Context(), store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.st.ClockOut(t.Context(), v, tech.ID, t0.Add(time.Hour)); err != nil {
			t.Errorf("ClockOut during day close: %v", err)
		}
		events, err := e.st.EventsAfter(t.Context(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ev := range events {
			names = append(names, ev.Name)
		}
		want := []string{workshop.EventTechClockedIn, workshop.EventTechClockedOut}
		if len(names) != 2 || names[0] != want[0] || names[1] != want[1] {
			t.Errorf("events = %v, want %v", names, want)
		}
	})
}

// PutCatalogItem is an idempotent sync: created once, the same values
// again change nothing (not even updatedAt), a change updates.
func TestCatalogSync(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		item := func(name string, minutes int) workshop.CatalogItem {
			now := workshop.MicrosOf(e.clk.Now())
			return workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: e.org.ID, LocationID: e.loc.ID,
				ServiceCode: "OIL", Name: name, EstimatedDuration: minutes, RequiredSkills: []string{"oil"}, IsActive: true,
				CreatedAt: now, UpdatedAt: now}
		}
		first, err := e.st.PutCatalogItem(t.Context(), item("Oil change", 45))
		if err != nil || !first.Created {
			t.Fatalf("first put: created %v, %v; want created", first.Created, err)
		}
		e.clk.Advance(time.Minute)
		again, err := e.st.PutCatalogItem(t.Context(), item("Oil change", 45))
		if err != nil || again.Created || again.Item.ID != first.Item.ID || again.Item.UpdatedAt != first.Item.UpdatedAt {
			t.Errorf("same put again = %+v (%v), want the first item unchanged", again, err)
		}
		e.clk.Advance(time.Minute)
		changed, err := e.st.PutCatalogItem(t.Context(), item("Oil and filter", 60))
		if err != nil || changed.Created || changed.Item.Name != "Oil and filter" || changed.Item.UpdatedAt <= first.Item.UpdatedAt {
			t.Errorf("changed put = %+v (%v), want updated with a later updatedAt", changed, err)
		}
		page, err := e.st.CatalogItems(t.Context(), store.Visibility{OrgID: e.org.ID}, workshop.PageRequest{Limit: 10})
		if err != nil || len(page.Data) != 1 {
			t.Errorf("catalog = %v (%v), want one item", page.Data, err)
		}
	})
}

func TestSettings(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		set := workshop.Settings{OperatingHours: []workshop.OpeningHours{{Day: "mon", Open: "07:00", Close: "16:00"}},
			Breaks: []workshop.Break{}, BayBufferMinutes: 20}
		if err := e.st.SetSettings(t.Context(), e.loc.ID, set); err != nil {
			t.Fatal(err)
		}
		got, err := e.st.LocationsSettings(t.Context(), store.Visibility{OrgID: e.org.ID})
		if err != nil || len(got) != 1 {
			t.Fatalf("settings = %v (%v), want one location", got, err)
		}
		if got[0].Timezone != "Europe/Berlin" || got[0].BayBufferMinutes != 20 || len(got[0].OperatingHours) != 1 || got[0].OperatingHours[0].Open != "07:00" {
			t.Errorf("settings = %+v, want what was set", got[0])
		}
	})
}
