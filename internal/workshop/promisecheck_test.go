package workshop_test

import (
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
	tests := []struct {
		name string
		now  time.Time
		jobs []workshop.JobOutlook
		want time.Time
	}{
		{"no open job: never", at(wed, "09:00"), nil, time.Time{}},
		{"closed at night: the opening", at(wed, "20:00"), []workshop.JobOutlook{unplaced}, at("2026-11-26", "08:00")},
		{"closed on Sunday: Monday's opening", at("2026-11-29", "10:00"), []workshop.JobOutlook{onTrack(at(wed, "09:00"), at(wed, "09:01"))}, at("2026-11-30", "08:00")},
		{"in the break: its end", at(wed, "12:10"), []workshop.JobOutlook{unplaced}, at(wed, "12:30")},
		{"open, nothing on track: 15 minutes", at(wed, "09:00"), []workshop.JobOutlook{unplaced, atRisk(at(wed, "16:00"), at(wed, "15:00"))}, at(wed, "09:15")},
		{"the period ends first", at(wed, "11:50"), []workshop.JobOutlook{unplaced}, at(wed, "12:00")},
		{"slack runs out", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "14:07"))}, at(wed, "09:07")},
		{"slack counted in working time (8 minutes over the break)", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "11:55"), at(wed, "12:33"))}, at(wed, "09:08")},
		{"slack outlasting 15 minutes", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "16:00"))}, at(wed, "09:15")},
		{"no slack: not sooner than a minute", at(wed, "09:00"), []workshop.JobOutlook{onTrack(at(wed, "14:00"), at(wed, "14:00"))}, at(wed, "09:01")},
		{"a job without a promise turns with no time", at(wed, "09:00"), []workshop.JobOutlook{{JobID: "job", ProjectedCompletion: ref(at(wed, "10:00"))}}, at(wed, "09:15")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := workshop.NextPromiseCheck(cal, tc.now, tc.jobs); !got.Equal(tc.want) {
				t.Errorf("NextPromiseCheck(%s) = %s, want %s", tc.now, got, tc.want)
			}
		})
	}
}
