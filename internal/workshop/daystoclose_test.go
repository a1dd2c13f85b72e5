package workshop_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestDaysToClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		now    time.Time
		closed []string
		want   []string
	}{
		{"Tuesday evening, Monday open: today first", at(2026, 3, 17, 19, 0), nil, []string{"2026-03-17", "2026-03-16"}},
		{"Tuesday before opening: Monday first", at(2026, 3, 17, 7, 30), nil, []string{"2026-03-16", "2026-03-17"}},
		{"Tuesday at opening: today first", at(2026, 3, 17, 8, 0), nil, []string{"2026-03-17", "2026-03-16"}},
		{"Monday morning: the Saturday before", at(2026, 3, 23, 7, 0), nil, []string{"2026-03-21", "2026-03-23"}},
		{"Sunday, a day without work: Saturday first", at(2026, 3, 22, 12, 0), nil, []string{"2026-03-21", "2026-03-22"}},
		{"the day before closed: today alone", at(2026, 3, 17, 7, 30), []string{"2026-03-16"}, []string{"2026-03-17"}},
	} {
		days, err := workshop.DaysToClose(shop, tc.now, func(date string) (bool, error) { return slices.Contains(tc.closed, date), nil })
		if got := days.Offered(); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: DaysToClose = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
