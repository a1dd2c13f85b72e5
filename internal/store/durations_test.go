package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// completedStep records a step of service code that ran from start to end
// (written down late, as a person does), in a job of its own made earlier.
func (e *jobEnv) completedStep(t *testing.T, code string, start, end time.Time) workshop.Step {
	t.Helper()
	job := e.createJob(t, e.loc.ID, func(j *workshop.Job) { j.CreatedAt = workshop.MicrosOf(start.Add(-time.Hour)) })
	st := e.newStep(job.ID, "")
	st.Label, st.ServiceCode = "Service "+code, &code
	st, err := e.st.CreateStep(t.Context(), e.v, st)
	if err != nil {
		t.Fatalf("CreateStep(%s): %v", code, err)
	}
	s, f := workshop.MicrosOf(start), workshop.MicrosOf(end)
	st = e.patchStep(t, st, store.StepPatch{Status: refOf(workshop.StepInProgress), ActualStart: &s})
	return e.patchStep(t, st, store.StepPatch{Status: refOf(workshop.StepCompleted), ActualEnd: &f})
}

func statsOf(t *testing.T, st *store.Store, locationID string, now time.Time) map[string]workshop.DurationStats {
	t.Helper()
	got, err := st.DurationStats(t.Context(), locationID, 0, now)
	if err != nil {
		t.Fatalf("DurationStats: %v", err)
	}
	return got
}

func wantStats(t *testing.T, what string, got workshop.DurationStats, samples, p50, p80 int) {
	t.Helper()
	ok := got.Samples == samples && (p50 == 0) == (got.P50 == nil) && (p80 == 0) == (got.P80 == nil) &&
		(got.P50 == nil || *got.P50 == p50) && (got.P80 == nil || *got.P80 == p80)
	if !ok {
		t.Errorf("%s: durationStats = %d samples, p50 %v, p80 %v; want %d, %d, %d (0: null)", what, got.Samples, got.P50, got.P80, samples, p50, p80)
	}
}

// TestDurationStats: the learned durations follow the completed steps of
// the last 90 days in working time, on both databases, in a second
// process (store) as in the writer's, and as the window slides.
func TestDurationStats(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		other := storetest.Open(t, db.URL, db.Options...) // another process: caches of its own
		e.catalogItem(t, e.loc.ID, "OIL", nil, true)
		// Mon 2026-03-16 in Berlin, shop hours 08:00-17:30 with a break 12:00-12:30.
		day := time.Date(2026, 3, 16, 0, 0, 0, 0, mustBerlin(t))
		e.setClock(day.Add(20 * time.Hour))
		hm := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
		minutes := []struct {
			start, end time.Time
			want       int
		}{
			{hm(8, 0), hm(8, 50), 50},
			{hm(9, 0), hm(10, 0), 60},
			{hm(11, 30), hm(13, 15), 75}, // the break is not work
			{hm(14, 0), hm(15, 20), 80},
			{hm(18, 0), hm(18, 40), 40}, // entirely after hours: wall clock
		}
		for i, m := range minutes[:4] {
			e.completedStep(t, "OIL", m.start, m.end)
			if i == 3 {
				wantStats(t, "four samples", statsOf(t, e.st, e.loc.ID, e.clk.Now())["OIL"], 4, 0, 0)
				wantStats(t, "four samples, other process", statsOf(t, other, e.loc.ID, e.clk.Now())["OIL"], 4, 0, 0)
			}
		}
		fifth := e.completedStep(t, "OIL", minutes[4].start, minutes[4].end)
		// 40 50 60 75 80: p50 rank 3, p80 rank 4.
		now := e.clk.Now()
		wantStats(t, "five samples", statsOf(t, e.st, e.loc.ID, now)["OIL"], 5, 60, 75)
		wantStats(t, "five samples, other process", statsOf(t, other, e.loc.ID, now)["OIL"], 5, 60, 75)

		// A correction of a completed step is a new sample, in every process.
		end := workshop.MicrosOf(hm(19, 40))
		e.patchStep(t, fifth, store.StepPatch{ActualEnd: &end}) // 100 minutes now
		wantStats(t, "corrected", statsOf(t, other, e.loc.ID, now)["OIL"], 5, 75, 80)

		// The window slides with no write: 90 days after the first end it
		// is out, the others stay until theirs.
		firstOut := minutes[0].end.Add(workshop.DurationHistory)
		wantStats(t, "just before the first leaves", statsOf(t, other, e.loc.ID, firstOut.Add(-time.Second))["OIL"], 5, 75, 80)
		wantStats(t, "the first left", statsOf(t, other, e.loc.ID, firstOut)["OIL"], 4, 0, 0)
		wantStats(t, "back in time again", statsOf(t, other, e.loc.ID, now)["OIL"], 5, 75, 80)
		if got := statsOf(t, e.st, e.loc.ID, now.Add(100*24*time.Hour)); len(got) != 0 {
			t.Errorf("after 100 days = %v, want no samples", got)
		}

		// New working hours measure the samples again: open around the
		// clock, the break counts.
		all := workshop.Settings{BayBufferMinutes: 10}
		for _, d := range workshop.Weekdays {
			all.OperatingHours = append(all.OperatingHours, workshop.OpeningHours{Day: d, Open: "00:00", Close: "23:59"})
		}
		if err := e.st.SetSettings(t.Context(), e.loc.ID, all); err != nil {
			t.Fatal(err)
		}
		// 50 60 80 100 105: p50 80, p80 100.
		wantStats(t, "around the clock", statsOf(t, other, e.loc.ID, now)["OIL"], 5, 80, 100)
		if got := statsOf(t, other, e.loc.ID, now); !slices.Equal(mapKeys(got), []string{"OIL"}) {
			t.Errorf("codes = %v, want only OIL", mapKeys(got))
		}
	})
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mustBerlin(t *testing.T) *time.Location {
	t.Helper()
	z, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return z
}
