package workshop

import (
	"testing"
	"time"
)

// A location without working hours works around the clock: its work clock
// says so at once instead of looking for a first working period forever.
func TestWorkClockWithoutWorkingHours(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	done := make(chan *workClock, 1)
	go func() { done <- newWorkClock(Calendar{}, from, from.Add(48*time.Hour)) }()
	select {
	case w := <-done:
		if !w.always || w.nextOpen(from.UnixMicro()) != from.UnixMicro() {
			t.Errorf("work clock without hours: always %v, next open %d; want always, open at once", w.always, w.nextOpen(from.UnixMicro()))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the work clock of a calendar without working hours did not return")
	}
}
