package workshop_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestNextPromiseCheck: the watch looks again only when time alone could
// turn a job: at the opening while closed, at the end of the working
// period, when an on-track job's slack in working time runs out, and at
// least every 15 minutes while open; never for a location without jobs.
func TestNextPromiseCheck(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	cal := workshop.NewCalendar(berlin, workshop.DefaultSettings()) // Mon-Fri 08:00-17:30, break 12:00-12:30; Sat 09:00-13:00
	at := func(day, clock string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", day+" "+clock, berlin)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	const wed = "2026-11-25"
	onTrack := func(projected, promise time.Time) workshop.JobOutlook {
		return workshop.JobOutlook{JobID: "job", PromiseTime: &promise, ProjectedCompletion: &projected}
	}
	atRisk := func(projected, promise time.Time) workshop.JobOutlook {
		o := onTrack(projected, promise)
		o.AtRisk, o.LateMinutes = true, 30
		return o
	}
	unplaced := workshop.JobOutlook{JobID: "job", AtRisk: true}
	// slot: the location's own slot of the 14-minute cycle, after a
	// minute from now and within 15 minutes.
	slot := time.Time{}
	tests := []struct {
		name   string
		now    time.Time
		jobs   []workshop.JobOutlook
		spread time.Duration
		want   time.Time // slot: the location's slot
	}{
		{"no open job: never", at(wed, "09:00"), nil, 0, time.Time{}},
		{"closed at night: the opening", at(wed, "20:00"), []workshop.JobOutlook{unplaced}, 0, at("2026-11-26", "08:00")},
		{"closed at night: the opening, spread", at(wed, "20:00"), []workshop.JobOutlook{unplaced}, 7 * time.Minute, at("2026-11-26", "08:07")},
		{"closed: a slack running out after the opening comes first", at(wed, "20:00"),
			[]workshop.JobOutlook{onTrack(at("2026-11-26", "14:00"), at("2026-11-26", "14:03"))}, 7 * time.Minute, at("2026-11-26", "08:03")},
		{"closed on Sunday: Monday's opening", at("2026-11-29", "10:00"), []workshop.JobOutlook{onTrack(at(wed, "09:00"), at(wed, "09:01"))}, 0, at("2026-11-30", "08:00")},
		{"in the break: its end", at(wed, "12:10"), []workshop.JobOutlook{unplaced}, 0, at(wed, "12:30")},
		{"open, nothing on track: the slot", at(wed, "09:00"), []workshop.JobOutlook{unplaced, atRisk(at(wed, "16:00"), at(wed, "15:00"))}, 0, slot},
		{"open, nothing on track: the slot, spread", at(wed, "09:00"), []workshop.JobOutlook{unplaced}, 11*time.Minute + 123*time.Millisecond, slot},
		// At 11:58 the slots of spread 0 and 2 minutes are 12:10 and 12:12.
		{"the period ends first", at(wed, "11:58"), []workshop.JobOutlook{unplaced}, 0, at(wed, "12:00")},
		{"the period's end, spread", at(wed, "11:58"), []workshop.JobOutlook{unplaced}, 2 * time.Minute, at(wed, "12:02")},
		{"slack runs out", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "14:07"))}, 0, at(wed, "09:07")},
		{"slack counted in working time (8 minutes over the break)", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "11:55"), at(wed, "12:33"))}, 0, at(wed, "09:08")},
		{"slack outlasting 15 minutes", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "16:00"))}, 5 * time.Minute, slot},
		{"no slack: not sooner than a minute", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "14:00"))}, 0, at(wed, "09:01")},
		{"a job without a promise turns with no time", at(wed, "09:00"), []workshop.JobOutlook{{JobID: "job", ProjectedCompletion: ref(at(wed, "10:00"))}}, 0, slot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := workshop.NextPromiseCheck(cal, tc.now, tc.jobs, tc.spread)
			if tc.want.IsZero() && len(tc.jobs) > 0 {
				cycle := 14 * time.Minute
				if got.Before(tc.now.Add(time.Minute)) || got.After(tc.now.Add(15*time.Minute)) ||
					time.Duration(got.UnixNano())%cycle != tc.spread%cycle {
					t.Errorf("NextPromiseCheck(%s) = %s, want the slot at %s of the 14-minute cycle within 15 minutes", tc.now, got, tc.spread)
				}
				return
			}
			if !got.Equal(tc.want) {
				t.Errorf("NextPromiseCheck(%s) = %s, want %s", tc.now, got, tc.want)
			}
		})
	}
}

// TestPromiseSpreadBreaksTheHerd: 1,000 locations looked at in the same
// second, open with nothing to turn soon, are looked at again spread over
// the cycle: no minute takes more than three times its share.
func TestPromiseSpreadBreaksTheHerd(t *testing.T) {
	t.Parallel()
	cal := workshop.NewCalendar(time.UTC, workshop.Settings{})
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	jobs := []workshop.JobOutlook{{JobID: "job", AtRisk: true}}
	perMinute := map[time.Time]int{}
	for i := range 1000 {
		next := workshop.NextPromiseCheck(cal, now, jobs, workshop.PromiseSpread(fmt.Sprint("loc_", i)))
		if next.Before(now.Add(time.Minute)) || next.After(now.Add(15*time.Minute)) {
			t.Fatalf("location %d: next look %s, want within 1 to 15 minutes of %s", i, next, now)
		}
		perMinute[next.Truncate(time.Minute)]++
	}
	for m, n := range perMinute {
		if n > 3*1000/14 {
			t.Errorf("%d looks in the minute of %s, want at most %d", n, m.Format("15:04"), 3*1000/14)
		}
	}
}
