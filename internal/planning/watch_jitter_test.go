package planning

import (
	"testing"
	"time"
)

// TestJitteredTicks: a tick's wait lies between half and one and a half
// ticks and is drawn anew each time, so two processes do not keep the
// phases they started with (one of them would take most looks).
func TestJitteredTicks(t *testing.T) {
	t.Parallel()
	const tick = 500 * time.Millisecond
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := jittered(tick)
		if d < tick/2 || d >= tick*3/2 {
			t.Fatalf("jittered(%v) = %v, want within [%v, %v)", tick, d, tick/2, tick*3/2)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("1,000 draws gave %d different waits, want them spread", len(seen))
	}
}
