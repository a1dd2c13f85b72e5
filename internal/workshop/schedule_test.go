package workshop_test

import (
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin without depending on the host's zoneinfo

	"github.com/workshop-platform/workshop/internal/workshop"
)

var berlin = func() *time.Location {
	z, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return z
}()

// at is a Berlin wall-clock time.
func at(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, berlin)
}

// shopSettings: Mon-Fri 08:00-17:30 with a 12:00-12:30 break, Sat
// 09:00-13:00, Sun closed. Written out rather than DefaultSettings so the
// tests don't move when the defaults do.
func shopSettings() workshop.Settings {
	var s workshop.Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
		s.Breaks = append(s.Breaks, workshop.Break{Day: d, Start: "12:00", End: "12:30"})
	}
	s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: "sat", Open: "09:00", Close: "13:00"})
	return s
}

var shop = workshop.Calendar{Zone: berlin, Settings: shopSettings()}

// allDay is open 00:00-24:00 every day, so its working time is real time.
var allDay = func() workshop.Calendar {
	var s workshop.Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
		s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: d, Open: "00:00", Close: "24:00"})
	}
	return workshop.Calendar{Zone: berlin, Settings: s}
}()

// Dates used below: 2026-03-16 is a Monday; 2026-03-29 (spring forward,
// 02:00 CET -> 03:00 CEST) and 2026-10-25 (fall back, 03:00 CEST -> 02:00
// CET) are Sundays.

func TestCalendarOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"Monday morning", at(2026, 3, 16, 10, 0), true},
		{"opening instant", at(2026, 3, 16, 8, 0), true},
		{"before opening", at(2026, 3, 16, 7, 59), false},
		{"break start", at(2026, 3, 16, 12, 0), false},
		{"in the break", at(2026, 3, 16, 12, 15), false},
		{"break end", at(2026, 3, 16, 12, 30), true},
		{"last minute", at(2026, 3, 16, 17, 29), true},
		{"closing instant", at(2026, 3, 16, 17, 30), false},
		{"night", at(2026, 3, 16, 23, 0), false},
		{"Saturday morning", at(2026, 3, 21, 10, 0), true},
		{"Saturday afternoon", at(2026, 3, 21, 13, 0), false},
		{"Sunday", at(2026, 3, 22, 10, 0), false},
		{"given in UTC: 07:30Z is 08:30 CET", time.Date(2026, 3, 16, 7, 30, 0, 0, time.UTC), true},
		{"given in UTC: 06:30Z is 08:30 CEST", time.Date(2026, 3, 30, 6, 30, 0, 0, time.UTC), true},
		{"given in UTC: 06:30Z is 07:30 CET", time.Date(2026, 10, 26, 6, 30, 0, 0, time.UTC), false},
	} {
		if got := shop.Open(tc.at); got != tc.want {
			t.Errorf("%s: Open(%v) = %v, want %v", tc.name, tc.at, got, tc.want)
		}
	}
}

func TestCalendarNextOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		from     time.Time
		want     time.Time
		wantZone bool // the result is in the calendar's zone
	}{
		{"open: unchanged", at(2026, 3, 16, 10, 0), at(2026, 3, 16, 10, 0), true},
		{"early morning", at(2026, 3, 16, 6, 0), at(2026, 3, 16, 8, 0), true},
		{"in the break", at(2026, 3, 16, 12, 10), at(2026, 3, 16, 12, 30), true},
		{"at closing", at(2026, 3, 16, 17, 30), at(2026, 3, 17, 8, 0), true},
		{"Friday evening", at(2026, 3, 20, 18, 0), at(2026, 3, 21, 9, 0), true},
		{"Saturday after closing", at(2026, 3, 21, 13, 0), at(2026, 3, 23, 8, 0), true},
		{"Sunday", at(2026, 3, 22, 10, 0), at(2026, 3, 23, 8, 0), true},
		{"spring-forward Sunday: Monday 08:00 CEST", at(2026, 3, 29, 1, 0), time.Date(2026, 3, 30, 6, 0, 0, 0, time.UTC), true},
		{"fall-back Sunday: Monday 08:00 CET", at(2026, 10, 25, 2, 30), time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC), true},
		{"from UTC", time.Date(2026, 3, 20, 17, 0, 0, 0, time.UTC), at(2026, 3, 21, 9, 0), true},
	} {
		got := shop.NextOpen(tc.from)
		if !got.Equal(tc.want) {
			t.Errorf("%s: NextOpen(%v) = %v, want %v", tc.name, tc.from, got, tc.want)
		}
		if tc.wantZone && got.Location() != berlin {
			t.Errorf("%s: NextOpen(%v) is in %v, want %v", tc.name, tc.from, got.Location(), berlin)
		}
	}
}

func TestCalendarAddWork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
		from time.Time
		d    time.Duration
		want time.Time
	}{
		{"inside hours", shop, at(2026, 3, 16, 9, 0), 2 * time.Hour, at(2026, 3, 16, 11, 0)},
		{"fills the morning: ends at the break, not after it", shop, at(2026, 3, 16, 10, 0), 2 * time.Hour, at(2026, 3, 16, 12, 0)},
		{"across the break", shop, at(2026, 3, 16, 11, 0), 2 * time.Hour, at(2026, 3, 16, 13, 30)},
		{"from inside the break", shop, at(2026, 3, 16, 12, 10), time.Hour, at(2026, 3, 16, 13, 30)},
		{"across a night", shop, at(2026, 3, 16, 16, 30), 2 * time.Hour, at(2026, 3, 17, 9, 0)},
		{"fills the day: ends at closing", shop, at(2026, 3, 16, 16, 30), time.Hour, at(2026, 3, 16, 17, 30)},
		{"from before opening", shop, at(2026, 3, 16, 5, 0), time.Hour, at(2026, 3, 16, 9, 0)},
		{"Friday 17:00 + 2h lands on Saturday", shop, at(2026, 3, 20, 17, 0), 2 * time.Hour, at(2026, 3, 21, 10, 30)},
		{"Saturday 12:30 + 2h lands on Monday", shop, at(2026, 3, 21, 12, 30), 2 * time.Hour, at(2026, 3, 23, 9, 30)},
		{"from Sunday", shop, at(2026, 3, 22, 10, 0), time.Hour, at(2026, 3, 23, 9, 0)},
		{"a working week: Mon 08:00 + 45h is Fri 17:30", shop, at(2026, 3, 16, 8, 0), 45 * time.Hour, at(2026, 3, 20, 17, 30)},
		{"a working week and Saturday", shop, at(2026, 3, 16, 8, 0), 49 * time.Hour, at(2026, 3, 21, 13, 0)},
		{"two weeks", shop, at(2026, 3, 16, 8, 0), 98*time.Hour + time.Hour, at(2026, 3, 30, 9, 0)},
		{"spring-forward weekend: Monday 09:00 CEST", shop, at(2026, 3, 28, 12, 0), 2 * time.Hour, time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC)},
		{"spring-forward weekend, Friday to Monday", shop, at(2026, 3, 27, 17, 0), 6 * time.Hour, at(2026, 3, 30, 9, 30)},
		{"fall-back weekend: Monday 09:00 CET", shop, at(2026, 10, 24, 12, 0), 2 * time.Hour, time.Date(2026, 10, 26, 8, 0, 0, 0, time.UTC)},
		{"fall-back weekend, Friday to Monday", shop, at(2026, 10, 23, 17, 0), 6 * time.Hour, at(2026, 10, 26, 9, 30)},
		{"zero duration: unchanged", shop, at(2026, 3, 22, 10, 0), 0, at(2026, 3, 22, 10, 0)},
		{"negative duration: unchanged", shop, at(2026, 3, 16, 10, 0), -time.Hour, at(2026, 3, 16, 10, 0)},
		{"24h calendar over spring forward: real time", allDay, at(2026, 3, 28, 12, 0), 24 * time.Hour, at(2026, 3, 29, 13, 0)},
		{"24h calendar over fall back: real time", allDay, at(2026, 10, 24, 12, 0), 24 * time.Hour, at(2026, 10, 25, 11, 0)},
	} {
		if got := tc.cal.AddWork(tc.from, tc.d); !got.Equal(tc.want) {
			t.Errorf("%s: AddWork(%v, %v) = %v, want %v", tc.name, tc.from, tc.d, got, tc.want)
		}
	}
}

func TestCalendarSubtractWork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
		to   time.Time
		d    time.Duration
		want time.Time
	}{
		{"inside hours", shop, at(2026, 3, 16, 11, 0), 2 * time.Hour, at(2026, 3, 16, 9, 0)},
		{"back across the break", shop, at(2026, 3, 16, 13, 30), 2 * time.Hour, at(2026, 3, 16, 11, 0)},
		{"from inside the break", shop, at(2026, 3, 16, 12, 10), time.Hour, at(2026, 3, 16, 11, 0)},
		{"fills the morning: starts at opening, not before it", shop, at(2026, 3, 16, 10, 0), 2 * time.Hour, at(2026, 3, 16, 8, 0)},
		{"from the evening", shop, at(2026, 3, 16, 21, 26), time.Hour, at(2026, 3, 16, 16, 30)},
		{"back across a night", shop, at(2026, 3, 17, 9, 0), 2 * time.Hour, at(2026, 3, 16, 16, 30)},
		{"Monday 09:30 - 2h lands on Saturday", shop, at(2026, 3, 23, 9, 30), 2 * time.Hour, at(2026, 3, 21, 12, 30)},
		{"from Sunday", shop, at(2026, 3, 22, 10, 0), time.Hour, at(2026, 3, 21, 12, 0)},
		{"a working week: Fri 17:30 - 45h is Mon 08:00", shop, at(2026, 3, 20, 17, 30), 45 * time.Hour, at(2026, 3, 16, 8, 0)},
		{"spring-forward weekend", shop, time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC), 2 * time.Hour, at(2026, 3, 28, 12, 0)},
		{"fall-back weekend", shop, time.Date(2026, 10, 26, 8, 0, 0, 0, time.UTC), 2 * time.Hour, at(2026, 10, 24, 12, 0)},
		{"zero duration: unchanged", shop, at(2026, 3, 22, 10, 0), 0, at(2026, 3, 22, 10, 0)},
		{"negative duration: unchanged", shop, at(2026, 3, 16, 10, 0), -time.Hour, at(2026, 3, 16, 10, 0)},
		{"24h calendar over spring forward: real time", allDay, at(2026, 3, 29, 13, 0), 24 * time.Hour, at(2026, 3, 28, 12, 0)},
		{"no working time: real time", workshop.Calendar{Zone: berlin}, at(2026, 3, 22, 10, 0), 30 * time.Hour, at(2026, 3, 21, 4, 0)},
	} {
		if got := tc.cal.SubtractWork(tc.to, tc.d); !got.Equal(tc.want) {
			t.Errorf("%s: SubtractWork(%v, %v) = %v, want %v", tc.name, tc.to, tc.d, got, tc.want)
		}
	}
}

func TestCalendarClosingTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		cal     workshop.Calendar
		y       int
		m       time.Month
		d       int
		want    time.Time
		working bool
	}{
		{"a weekday closes at 17:30", shop, 2026, 3, 16, at(2026, 3, 16, 17, 30), true},
		{"Saturday at 13:00", shop, 2026, 3, 21, at(2026, 3, 21, 13, 0), true},
		{"Sunday is closed", shop, 2026, 3, 22, time.Time{}, false},
		{"a day open until 24:00 closes at the next midnight", allDay, 2026, 3, 16, at(2026, 3, 17, 0, 0), true},
		{"a calendar without hours has no closing", workshop.Calendar{Zone: berlin}, 2026, 3, 16, time.Time{}, false},
	} {
		got, working := tc.cal.ClosingTime(tc.y, tc.m, tc.d)
		if working != tc.working || !got.Equal(tc.want) {
			t.Errorf("%s: ClosingTime = %v, %v; want %v, %v", tc.name, got, working, tc.want, tc.working)
		}
	}
}

func TestCalendarWorkBetween(t *testing.T) {
	t.Parallel()
	// Open 01:00-04:00 on Sundays only: the night of a DST change.
	var night workshop.Settings
	night.OperatingHours = []workshop.OpeningHours{{Day: "sun", Open: "01:00", Close: "04:00"}}
	nightCal := workshop.Calendar{Zone: berlin, Settings: night}
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
		a, b time.Time
		want time.Duration
	}{
		{"inside hours", shop, at(2026, 3, 16, 9, 0), at(2026, 3, 16, 11, 0), 2 * time.Hour},
		{"across the break", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 13, 30), 2 * time.Hour},
		{"across a night", shop, at(2026, 3, 16, 16, 30), at(2026, 3, 17, 9, 0), 2 * time.Hour},
		{"closed time only", shop, at(2026, 3, 16, 18, 0), at(2026, 3, 17, 7, 0), 0},
		{"Friday 17:00 to Monday 09:00", shop, at(2026, 3, 20, 17, 0), at(2026, 3, 23, 9, 0), 5*time.Hour + 30*time.Minute},
		{"same over spring forward", shop, at(2026, 3, 27, 17, 0), at(2026, 3, 30, 9, 0), 5*time.Hour + 30*time.Minute},
		{"same over fall back", shop, at(2026, 10, 23, 17, 0), at(2026, 10, 26, 9, 0), 5*time.Hour + 30*time.Minute},
		{"a calendar week", shop, at(2026, 3, 16, 0, 0), at(2026, 3, 23, 0, 0), 49 * time.Hour},
		{"b before a", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 9, 0), 0},
		{"a == b", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 11, 0), 0},
		{"24h calendar: spring-forward Sunday has 23h", allDay, at(2026, 3, 29, 0, 0), at(2026, 3, 30, 0, 0), 23 * time.Hour},
		{"24h calendar: fall-back Sunday has 25h", allDay, at(2026, 10, 25, 0, 0), at(2026, 10, 26, 0, 0), 25 * time.Hour},
		{"01:00-04:00 on spring forward is 2h", nightCal, at(2026, 3, 28, 0, 0), at(2026, 3, 30, 0, 0), 2 * time.Hour},
		{"01:00-04:00 on fall back is 4h", nightCal, at(2026, 10, 24, 0, 0), at(2026, 10, 26, 0, 0), 4 * time.Hour},
		{"01:00-04:00 on an ordinary Sunday is 3h", nightCal, at(2026, 3, 21, 0, 0), at(2026, 3, 23, 0, 0), 3 * time.Hour},
	} {
		if got := tc.cal.WorkBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: WorkBetween(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

// A calendar without usable working time treats all time as working time.
func TestCalendarWithoutHours(t *testing.T) {
	t.Parallel()
	garbled := workshop.Settings{OperatingHours: []workshop.OpeningHours{
		{Day: "mon", Open: "25:00", Close: "26:00"},
		{Day: "funday", Open: "08:00", Close: "17:00"},
		{Day: "tue", Open: "17:00", Close: "08:00"},
		{Day: "wed", Open: "8h", Close: "17:00"},
	}}
	allBreak := workshop.Settings{
		OperatingHours: []workshop.OpeningHours{{Day: "mon", Open: "08:00", Close: "17:00"}},
		Breaks:         []workshop.Break{{Day: "mon", Start: "07:00", End: "18:00"}},
	}
	sunday := at(2026, 3, 22, 3, 0)
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
	}{
		{"no settings", workshop.Calendar{Zone: berlin}},
		{"no zone either", workshop.Calendar{}},
		{"hours that do not parse", workshop.Calendar{Zone: berlin, Settings: garbled}},
		{"breaks cover the hours", workshop.Calendar{Zone: berlin, Settings: allBreak}},
	} {
		if !tc.cal.Open(sunday) {
			t.Errorf("%s: Open(%v) = false, want true", tc.name, sunday)
		}
		if got := tc.cal.NextOpen(sunday); !got.Equal(sunday) {
			t.Errorf("%s: NextOpen(%v) = %v, want it unchanged", tc.name, sunday, got)
		}
		if got, want := tc.cal.AddWork(sunday, 30*time.Hour), sunday.Add(30*time.Hour); !got.Equal(want) {
			t.Errorf("%s: AddWork(%v, 30h) = %v, want %v", tc.name, sunday, got, want)
		}
		if got := tc.cal.WorkBetween(sunday, sunday.Add(30*time.Hour)); got != 30*time.Hour {
			t.Errorf("%s: WorkBetween = %v, want 30h", tc.name, got)
		}
	}
}

// Lenient settings: spellings, several hours a day, 24:00.
func TestCalendarSettingsParsing(t *testing.T) {
	t.Parallel()
	s := workshop.Settings{
		OperatingHours: []workshop.OpeningHours{
			{Day: " MON ", Open: "8:00", Close: "10:00"},
			{Day: "mon", Open: "09:00", Close: "12:00"}, // overlaps the first: merged
			{Day: "mon", Open: "14:00", Close: "24:00"},
			{Day: "tue", Open: "10:00", Close: "11:00"},
		},
		Breaks: []workshop.Break{{Day: "mon", Start: "09:30", End: "09:45"}, {Day: "bad", Start: "10:00", End: "11:00"}},
	}
	cal := workshop.Calendar{Zone: berlin, Settings: s}
	for _, tc := range []struct {
		name string
		a, b time.Time
		want time.Duration
	}{
		{"Monday", at(2026, 3, 16, 0, 0), at(2026, 3, 17, 0, 0), 4*time.Hour - 15*time.Minute + 10*time.Hour},
		{"Monday to Tuesday 10:30", at(2026, 3, 16, 23, 0), at(2026, 3, 17, 10, 30), 90 * time.Minute},
	} {
		if got := cal.WorkBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: WorkBetween = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got, want := cal.AddWork(at(2026, 3, 16, 23, 0), 2*time.Hour), at(2026, 3, 17, 11, 0); !got.Equal(want) {
		t.Errorf("AddWork(Mon 23:00, 2h) = %v, want %v (1h Mon, 1h Tue)", got, want)
	}
	if got, want := cal.AddWork(at(2026, 3, 16, 23, 0), 150*time.Minute), at(2026, 3, 23, 8, 30); !got.Equal(want) {
		t.Errorf("AddWork(Mon 23:00, 2h30) = %v, want %v (1h Mon, 1h Tue, next Mon 08:00 +30m)", got, want)
	}
}

func TestSettingsBayBuffer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		min  int
		want time.Duration
	}{{10, 10 * time.Minute}, {0, 0}, {-5, 0}} {
		if got := (workshop.Settings{BayBufferMinutes: tc.min}).BayBuffer(); got != tc.want {
			t.Errorf("BayBuffer(%d) = %v, want %v", tc.min, got, tc.want)
		}
	}
}

func TestSlackMinutes(t *testing.T) {
	t.Parallel()
	mon := func(hh, mm int) time.Time { return at(2026, 3, 16, hh, mm) }
	for _, tc := range []struct {
		name               string
		promise, projected time.Time
		want               int
	}{
		{"early", mon(16, 0), mon(11, 0), 270}, // 1h, break, 3h30
		{"early over a weekend", at(2026, 3, 23, 9, 0), at(2026, 3, 20, 17, 0), 330},
		{"29m59s counts as 29", mon(16, 0), mon(15, 30).Add(time.Second), 29},
		{"across the break: 10 working minutes", mon(12, 35), mon(11, 55), 10},
		{"exactly on time", mon(16, 0), mon(16, 0), 0},
		{"late", mon(16, 0), at(2026, 3, 17, 9, 0), -150},
		{"late by seconds: -1", mon(16, 0), mon(16, 0).Add(10 * time.Second), -1},
		{"late only in closed time", mon(17, 30), mon(19, 0), 0},
	} {
		if got := workshop.SlackMinutes(shop, tc.promise, tc.projected); got != tc.want {
			t.Errorf("%s: SlackMinutes(%v, %v) = %d, want %d", tc.name, tc.promise, tc.projected, got, tc.want)
		}
	}
}

// WorkBetween undoes AddWork, and AddWork lands in or at the end of working
// time, on random instants through 2026 (both DST changes included).
func TestCalendarRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	year := at(2026, 1, 1, 0, 0)
	for range 2000 {
		from := year.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		d := time.Duration(r.Int64N(int64(80 * time.Hour)))
		for _, cal := range []workshop.Calendar{shop, allDay} {
			end := cal.AddWork(from, d)
			if got := cal.WorkBetween(from, end); got != d {
				t.Fatalf("WorkBetween(%v, AddWork(%v, %v) = %v) = %v, want %v", from, from, d, end, got, d)
			}
			if d > 0 && !cal.Open(end.Add(-time.Nanosecond)) {
				t.Fatalf("AddWork(%v, %v) = %v, which does not end working time", from, d, end)
			}
			if n := cal.NextOpen(from); n.Before(from) || !cal.Open(n) || cal.WorkBetween(from, n) != 0 {
				t.Fatalf("NextOpen(%v) = %v: not the next working instant", from, n)
			}
			start := cal.SubtractWork(from, d)
			if got := cal.WorkBetween(start, from); got != d {
				t.Fatalf("WorkBetween(SubtractWork(%v, %v) = %v, %v) = %v, want %v", from, d, start, from, got, d)
			}
			if d > 0 && !cal.Open(start) {
				t.Fatalf("SubtractWork(%v, %v) = %v, which does not start working time", from, d, start)
			}
		}
	}
}
