package workshop_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestDeriveJobStatus(t *testing.T) {
	t.Parallel()
	type counts = workshop.StepCounts
	for _, tc := range []struct {
		name                          string
		delivered, cancelled, arrived bool
		c                             counts
		want                          string
	}{
		{"no arrival, no steps", false, false, false, counts{}, workshop.JobBooked},
		{"no arrival, pending steps", false, false, false, counts{Pending: 3}, workshop.JobBooked},
		{"arrived, no steps", false, false, true, counts{}, workshop.JobArrived},
		{"arrived, pending steps", false, false, true, counts{Pending: 2}, workshop.JobArrived},
		{"a step in progress", false, false, true, counts{InProgress: 1}, workshop.JobInProgress},
		{"in progress without arrival", false, false, false, counts{Pending: 1, InProgress: 1}, workshop.JobInProgress},
		{"in_progress over completed", false, false, true, counts{InProgress: 1, Completed: 4}, workshop.JobInProgress},
		{"in_progress over completed and pending", false, false, true, counts{Pending: 1, InProgress: 1, Completed: 1}, workshop.JobInProgress},
		{"some completed, some pending", false, false, true, counts{Pending: 1, Completed: 1}, workshop.JobWaiting},
		{"waiting without arrival", false, false, false, counts{Pending: 5, Completed: 1}, workshop.JobWaiting},
		{"all completed", false, false, true, counts{Completed: 3}, workshop.JobReady},
		{"one step completed", false, false, false, counts{Completed: 1}, workshop.JobReady},
		{"ready needs a step: none is arrived", false, false, true, counts{}, workshop.JobArrived},
		{"ready needs a step: none is booked", false, false, false, counts{}, workshop.JobBooked},
		{"delivered", true, false, true, counts{}, workshop.JobDelivered},
		{"delivered over steps in progress", true, false, true, counts{InProgress: 2, Pending: 1}, workshop.JobDelivered},
		{"delivered over all completed", true, false, false, counts{Completed: 2}, workshop.JobDelivered},
		{"cancelled", false, true, false, counts{}, workshop.JobCancelled},
		{"cancelled over steps in progress", false, true, true, counts{InProgress: 1}, workshop.JobCancelled},
		{"cancelled over waiting", false, true, true, counts{Pending: 1, Completed: 1}, workshop.JobCancelled},
		{"cancelled over all completed", false, true, true, counts{Completed: 1}, workshop.JobCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := workshop.DeriveJobStatus(tc.delivered, tc.cancelled, tc.arrived, tc.c)
			if got != tc.want {
				t.Errorf("DeriveJobStatus(delivered=%v, cancelled=%v, arrived=%v, %+v) = %q, want %q",
					tc.delivered, tc.cancelled, tc.arrived, tc.c, got, tc.want)
			}
		})
	}
}

// TestDeriveJobStatusCoversEveryStatus checks that the table above is not
// missing a status of JobStatuses.
func TestDeriveJobStatusCoversEveryStatus(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, delivered := range []bool{false, true} {
		for _, cancelled := range []bool{false, true} {
			for _, arrived := range []bool{false, true} {
				for p := range 3 {
					for ip := range 3 {
						for c := range 3 {
							s := workshop.DeriveJobStatus(delivered, cancelled, arrived, workshop.StepCounts{Pending: p, InProgress: ip, Completed: c})
							if !slices.Contains(workshop.JobStatuses, s) {
								t.Fatalf("DeriveJobStatus = %q, not one of %v", s, workshop.JobStatuses)
							}
							seen[s] = true
						}
					}
				}
			}
		}
	}
	for _, s := range workshop.JobStatuses {
		if !seen[s] {
			t.Errorf("no input derives %q", s)
		}
	}
}

var stepStatuses = []string{workshop.StepPending, workshop.StepInProgress, workshop.StepCompleted}

func TestStepTransition(t *testing.T) {
	t.Parallel()
	allowed := map[[2]string]bool{
		{workshop.StepPending, workshop.StepPending}:       true, // no change
		{workshop.StepPending, workshop.StepInProgress}:    true,
		{workshop.StepPending, workshop.StepCompleted}:     false, // must start first
		{workshop.StepInProgress, workshop.StepPending}:    false,
		{workshop.StepInProgress, workshop.StepInProgress}: true,
		{workshop.StepInProgress, workshop.StepCompleted}:  true,
		{workshop.StepCompleted, workshop.StepPending}:     false,
		{workshop.StepCompleted, workshop.StepInProgress}:  false,
		{workshop.StepCompleted, workshop.StepCompleted}:   true,
	}
	if len(allowed) != len(stepStatuses)*len(stepStatuses) {
		t.Fatalf("table has %d pairs, want %d", len(allowed), len(stepStatuses)*len(stepStatuses))
	}
	for _, from := range stepStatuses {
		for _, to := range stepStatuses {
			t.Run(from+"->"+to, func(t *testing.T) {
				t.Parallel()
				err := workshop.StepTransition(from, to)
				if want := allowed[[2]string{from, to}]; want {
					if err != nil {
						t.Errorf("StepTransition(%s, %s) = %v, want nil", from, to, err)
					}
					return
				}
				var e *workshop.Error
				if !errors.As(err, &e) || e.Code != workshop.CodeInvalidTransition {
					t.Errorf("StepTransition(%s, %s) = %v, want a *workshop.Error with code %s", from, to, err, workshop.CodeInvalidTransition)
				}
			})
		}
	}
}

func TestCheckArrival(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 15, 30, 0, time.UTC)
	const skew = 5 * time.Minute
	berlin := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name string
		at   time.Time
		ok   bool
	}{
		{"long ago", now.AddDate(-1, 0, 0), true},
		{"a second ago", now.Add(-time.Second), true},
		{"now", now, true},
		{"now with another offset", now.In(berlin), true},
		{"within the skew", now.Add(skew - time.Second), true},
		{"exactly the skew", now.Add(skew), true},
		{"just beyond the skew", now.Add(skew + time.Microsecond), false},
		{"beyond the skew with another offset", now.Add(skew + time.Minute).In(berlin), false},
		{"tomorrow", now.Add(24 * time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := workshop.CheckArrival("arrivalTime", tc.at, now, skew)
			if tc.ok {
				if err != nil {
					t.Errorf("CheckArrival(%s) = %v, want nil", tc.at.Format(time.RFC3339Nano), err)
				}
				return
			}
			var e *workshop.Error
			if !errors.As(err, &e) {
				t.Fatalf("CheckArrival(%s) = %v, want a *workshop.Error", tc.at.Format(time.RFC3339Nano), err)
			}
			if e.Code != workshop.CodeValidationFailed || e.Field != "arrivalTime" {
				t.Errorf("CheckArrival = code %s field %q, want %s field arrivalTime", e.Code, e.Field, workshop.CodeValidationFailed)
			}
			if len(e.Fields) != 1 || e.Fields[0].Field != "arrivalTime" {
				t.Errorf("CheckArrival errors[] = %+v, want one entry for arrivalTime", e.Fields)
			}
		})
	}
	// No skew: anything after now is refused.
	if err := workshop.CheckArrival("arrivalTime", now.Add(time.Microsecond), now, 0); err == nil {
		t.Error("CheckArrival(now+1µs, skew 0) = nil, want an error")
	}
}

func TestFormatJobNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		year, seq int
		want      string
	}{
		{2026, 1, "RO-2026-0001"},
		{2026, 42, "RO-2026-0042"},
		{2026, 9999, "RO-2026-9999"},
		{2026, 12345, "RO-2026-12345"},
		{2027, 1, "RO-2027-0001"},
	} {
		if got := workshop.FormatJobNumber(tc.year, tc.seq); got != tc.want {
			t.Errorf("FormatJobNumber(%d, %d) = %q, want %q", tc.year, tc.seq, got, tc.want)
		}
	}
}

// FuzzStepMachine applies random status changes to a job's steps through
// StepTransition and checks the step machine's invariants and that the
// derived job status agrees with the step counts at every point.
//
// Input: data[0] the number of steps (1..8), data[1] the arrival and the
// terminal state, then pairs (step index, target status).
func FuzzStepMachine(f *testing.F) {
	f.Add([]byte{2, 1, 0, 1, 0, 2, 1, 1, 1, 2})             // both steps started and completed
	f.Add([]byte{3, 0, 0, 2, 0, 1, 0, 2, 0, 0, 0, 1})       // pending->completed refused, back to pending refused
	f.Add([]byte{1, 1, 0, 1, 0, 2, 0, 1, 0, 0, 0, 2})       // completed stays completed
	f.Add([]byte{4, 2, 0, 1, 1, 1, 2, 1, 0, 2, 3, 1})       // delivered job
	f.Add([]byte{4, 4, 0, 1, 1, 1, 2, 1, 0, 2, 3, 1})       // cancelled job
	f.Add([]byte{5, 1})                                     // nothing happens
	f.Add([]byte{0})                                        // shortest input
	f.Add([]byte{8, 0, 7, 1, 7, 2, 6, 2, 6, 1, 6, 2, 5, 0}) // mixed
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		steps := make([]string, 1+int(data[0])%8)
		for i := range steps {
			steps[i] = workshop.StepPending
		}
		var flags byte
		if len(data) > 1 {
			flags = data[1]
		}
		arrived := flags&1 != 0
		terminal := (flags >> 1) % 3 // 0 none, 1 delivered, 2 cancelled
		completedBefore := 0
		check := func() {
			var c workshop.StepCounts
			for _, s := range steps {
				switch s {
				case workshop.StepPending:
					c.Pending++
				case workshop.StepInProgress:
					c.InProgress++
				case workshop.StepCompleted:
					c.Completed++
				default:
					t.Fatalf("step status %q is not a step status", s)
				}
			}
			if c.Completed < completedBefore {
				t.Fatalf("completed steps went from %d to %d: a step left completed", completedBefore, c.Completed)
			}
			completedBefore = c.Completed
			got := workshop.DeriveJobStatus(terminal == 1, terminal == 2, arrived, c)
			if !slices.Contains(workshop.JobStatuses, got) {
				t.Fatalf("DeriveJobStatus = %q, not one of %v", got, workshop.JobStatuses)
			}
			var want string
			switch {
			case terminal == 2:
				want = workshop.JobCancelled
			case terminal == 1:
				want = workshop.JobDelivered
			case c.InProgress > 0:
				want = workshop.JobInProgress
			case c.Completed > 0 && c.Pending == 0:
				want = workshop.JobReady
			case c.Completed > 0:
				want = workshop.JobWaiting
			case arrived:
				want = workshop.JobArrived
			default:
				want = workshop.JobBooked
			}
			if got != want {
				t.Fatalf("DeriveJobStatus(arrived=%v, terminal=%d, %+v) = %q, want %q", arrived, terminal, c, got, want)
			}
			if got == workshop.JobReady && c.Completed == 0 {
				t.Fatalf("ready with no completed step: %+v", c)
			}
		}
		check()
		for i := 2; i+1 < len(data); i += 2 {
			idx := int(data[i]) % len(steps)
			from, to := steps[idx], stepStatuses[int(data[i+1])%len(stepStatuses)]
			err := workshop.StepTransition(from, to)
			if from == workshop.StepCompleted && to != workshop.StepCompleted && err == nil {
				t.Fatalf("step %d left completed for %s", idx, to)
			}
			if from != workshop.StepPending && to == workshop.StepPending && err == nil {
				t.Fatalf("step %d went back from %s to pending", idx, from)
			}
			if from == workshop.StepPending && to == workshop.StepCompleted && err == nil {
				t.Fatalf("step %d completed without being started", idx)
			}
			if err != nil {
				if workshop.ErrorCode(err) != workshop.CodeInvalidTransition {
					t.Fatalf("StepTransition(%s, %s) = %v, want code %s", from, to, err, workshop.CodeInvalidTransition)
				}
				continue
			}
			steps[idx] = to
			check()
		}
	})
}
