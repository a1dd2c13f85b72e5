package main

import (
	"net/url"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

type capacityOut struct {
	LocationID string `json:"locationId"`
	Days       []struct {
		Date                             string
		AvailableMinutes, PlannedMinutes int
		Technicians                      []struct {
			TechID                           string `json:"techId"`
			AvailableMinutes, PlannedMinutes int
		}
	}
}

type daysOut struct {
	Days []struct {
		Date               string
		DropOff            time.Time
		EarliestCompletion *time.Time
		SameDay            bool
	}
}

// TestCapacityAndDaysToOffer: the capacity of the next days is each
// technician's working time and the plan's work on them, summing to the
// plan's steps; the days to offer a booking quote each working day's
// opening as the availability read quotes that drop-off; dates out of
// range are refused on from, on both databases.
func TestCapacityAndDaysToOffer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db) // open 00:00-23:59 every day
		p.job(time.Now().Add(30*time.Hour), "normal", "OIL", "BRAKES")
		p.job(time.Now().Add(50*time.Hour), "high", "BRAKES")
		zone, err := workshop.LoadZone(p.loc.Timezone)
		if err != nil {
			t.Fatal(err)
		}
		today := time.Now().In(zone)
		base := "?locationId=" + p.loc.ID

		var c capacityOut
		var plan planOut
		for range 3 { // one plan: read both in one minute
			minute := time.Now().Truncate(time.Minute)
			p.call("GET", "/v1/scheduler/capacity"+base, nil, 200).Decode(t, &c)
			plan = p.plan()
			if time.Now().Truncate(time.Minute).Equal(minute) {
				break
			}
		}
		if len(c.Days) != 7 || c.Days[0].Date != today.Format(time.DateOnly) {
			t.Fatalf("capacity: %d days from %s, want 7 from today", len(c.Days), c.Days[0].Date)
		}
		planned, want := 0, 0
		for _, d := range c.Days {
			sumA, sumP := 0, 0
			for _, tc := range d.Technicians {
				if tc.AvailableMinutes != 1439 {
					t.Errorf("%s %s: available %d, want 1439 (00:00-23:59)", d.Date, tc.TechID, tc.AvailableMinutes)
				}
				sumA, sumP = sumA+tc.AvailableMinutes, sumP+tc.PlannedMinutes
			}
			if len(d.Technicians) != 3 || d.AvailableMinutes != sumA || d.PlannedMinutes != sumP {
				t.Errorf("%s: %d technicians, day %d/%d, want 3 and the sums %d/%d", d.Date, len(d.Technicians), d.AvailableMinutes, d.PlannedMinutes, sumA, sumP)
			}
			planned += d.PlannedMinutes
		}
		for _, s := range plan.Steps {
			want += 60 * len(s.TechIDs) // every catalog item is 60 minutes, all within the week
		}
		if planned != want {
			t.Errorf("planned minutes over the week %d, want the plan's %d", planned, want)
		}
		for _, from := range []string{today.AddDate(0, 0, -1).Format(time.DateOnly), today.AddDate(0, 0, 14).Format(time.DateOnly)} {
			wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key,
				Path: "/v1/scheduler/capacity" + base + "&from=" + from}), 422, "validation_failed", "from")
		}
		last := today.AddDate(0, 0, 13).Format(time.DateOnly)
		p.call("GET", "/v1/scheduler/capacity"+base+"&from="+last+"&days=14", nil, 200).Decode(t, &c)
		if len(c.Days) != 14 || c.Days[0].Date != last {
			t.Errorf("capacity from the 14th day: %d days from %s", len(c.Days), c.Days[0].Date)
		}

		var d daysOut
		for range 3 {
			minute := time.Now().Truncate(time.Minute)
			p.call("GET", "/v1/scheduler/availability/days"+base+"&serviceCodes=OIL,BRAKES&days=3", nil, 200).Decode(t, &d)
			if len(d.Days) != 3 {
				t.Fatalf("days to offer: %d, want 3", len(d.Days))
			}
			for i, day := range d.Days {
				if want := today.AddDate(0, 0, i).Format(time.DateOnly); day.Date != want {
					t.Errorf("day %d: %s, want %s", i, day.Date, want)
				}
				var q struct{ EarliestCompletion *time.Time }
				p.call("GET", "/v1/scheduler/availability"+base+"&serviceCodes=OIL,BRAKES&from="+url.QueryEscape(day.DropOff.Format(time.RFC3339Nano)), nil, 200).Decode(t, &q)
				if q.EarliestCompletion == nil || day.EarliestCompletion == nil || !q.EarliestCompletion.Equal(*day.EarliestCompletion) {
					t.Errorf("day %s: ready %v, the quote of its drop-off %v says %v", day.Date, day.EarliestCompletion, day.DropOff, q.EarliestCompletion)
				}
				if same := day.EarliestCompletion != nil && day.EarliestCompletion.In(zone).Format(time.DateOnly) == day.Date; same != day.SameDay {
					t.Errorf("day %s: sameDay %v, want %v", day.Date, day.SameDay, same)
				}
			}
			if time.Now().Truncate(time.Minute).Equal(minute) {
				break
			}
		}
		if first := d.Days[0].DropOff; first.Before(time.Now().Add(-2*time.Minute)) || first.After(time.Now()) {
			t.Errorf("today's drop-off %v, want now", first)
		}
		if second := d.Days[1].DropOff.In(zone); second.Hour() != 0 || second.Minute() != 0 {
			t.Errorf("tomorrow's drop-off %v, want the opening 00:00", second)
		}
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key,
			Path: "/v1/scheduler/availability/days" + base + "&serviceCodes=OIL&from=" + today.AddDate(0, 0, -1).Format(time.DateOnly)}), 422, "validation_failed", "from")
		wantProblem(t, apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key,
			Path: "/v1/scheduler/availability/days" + base + "&serviceCodes=NOPE"}), 422, "validation_failed", "serviceCodes")
		if r := apitest.Call(t, p.api, apitest.Request{Method: "GET", Key: p.o.Key.Key, Path: "/v1/scheduler/capacity" + base + "&days=15"}); r.Status == 200 {
			t.Errorf("days=15: 200, want a refusal")
		}
	})
}
