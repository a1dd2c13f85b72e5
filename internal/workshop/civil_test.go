package workshop

import (
	"testing"
	"time"
)

func TestDayNumberCountsLikeTimeDate(t *testing.T) {
	t.Parallel()
	for _, y := range []int{-401, -400, -1, 0, 1, 1600, 1900, 1969, 1970, 2000, 2024, 2026, 2100} {
		for m := time.January; m <= time.December; m++ {
			for d := -40; d <= 70; d++ {
				want := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400 // midnights: exact
				if got := dayNumber(y, m, d); got != int(want) {
					t.Fatalf("dayNumber(%d, %v, %d) = %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}

func TestCivilDateUndoesDayNumber(t *testing.T) {
	t.Parallel()
	for days := int64(-800_000); days <= 800_000; days += 37 {
		y, m, d := civilDate(days)
		if got := dayNumber(y, time.Month(m), d); int64(got) != days {
			t.Fatalf("dayNumber(civilDate(%d) = %d-%d-%d) = %d", days, y, m, d, got)
		}
	}
}
