package workshop_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestLateMinutes pins the lateness every plan, bound and report counts:
// whole minutes, rounded up, none without a promise or when on time.
func TestLateMinutes(t *testing.T) {
	t.Parallel()
	promise := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name    string
		promise *time.Time
		end     time.Time
		want    int
	}{
		{"no promise", nil, promise.Add(time.Hour), 0},
		{"early", &promise, promise.Add(-time.Minute), 0},
		{"on the minute", &promise, promise, 0},
		{"a microsecond late", &promise, promise.Add(time.Microsecond), 1},
		{"a minute late", &promise, promise.Add(time.Minute), 1},
		{"just over a minute", &promise, promise.Add(time.Minute + time.Nanosecond), 2},
		{"an hour and a half", &promise, promise.Add(90 * time.Minute), 90},
		{"promised in year 1", ref(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)), promise, 1065521760},
		{"promised in year 9999", ref(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)), promise, 0},
	} {
		if got := workshop.LateMinutes(c.promise, c.end); got != c.want {
			t.Errorf("%s: LateMinutes = %d, want %d", c.name, got, c.want)
		}
	}
}
