package webapp

import (
	"context"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// What the dispatch rows and the week say of the technicians' time: per
// local date, each technician's working minutes and the plan's minutes on
// them (contract section 8, capacity).

// capacityDay is one local date's capacity.
type capacityDay struct {
	Date  string
	Techs map[string]techDay // by technician id
}

// techDay is a technician's working and planned minutes on a date.
type techDay struct{ Available, Planned int }

// capacity is the capacity of days dates from the local midnight from.
func (a *App) capacity(_ context.Context, p *planning.Plan, td timelineData, from time.Time, days int, now time.Time) ([]capacityDay, error) {
	return planCapacity(p, td, from, days, now), nil
}

// planCapacity counts capacity on the plan itself: the location's working
// time for each technician who is not unavailable, and the working time of
// the plan's steps on them that day (a step in progress from now on).
func planCapacity(p *planning.Plan, td timelineData, from time.Time, days int, now time.Time) []capacityDay {
	cal := workshop.NewCalendar(p.Zone, p.Settings)
	out := make([]capacityDay, 0, days)
	for i := range days {
		day := from.AddDate(0, 0, i)
		end := day.AddDate(0, 0, 1)
		cd := capacityDay{Date: day.Format(time.DateOnly), Techs: map[string]techDay{}}
		open := int(cal.WorkBetween(day, end).Minutes())
		for _, t := range td.data.Techs {
			if t.Status != "unavailable" {
				cd.Techs[t.ID] = techDay{Available: open}
			}
		}
		for _, ps := range p.Dispatch.Steps {
			a, b := workshop.Later(workshop.Later(ps.Start, day), now), workshop.Earlier(ps.End, end)
			if !a.Before(b) {
				continue
			}
			m := int(cal.WorkBetween(a, b).Minutes())
			for _, id := range ps.TechIDs {
				c := cd.Techs[id]
				c.Planned += m
				cd.Techs[id] = c
			}
		}
		out = append(out, cd)
	}
	return out
}

// rowHours writes each technician's planned hours against their working
// hours of the day on their row.
func (d *desk) rowHours(rows []timelineRow, c capacityDay) {
	for i := range rows {
		td, ok := c.Techs[rows[i].ID]
		if !ok {
			continue
		}
		rows[i].Hours = durationText(td.Planned) + " of " + durationText(td.Available) + " h"
		rows[i].Busy = busy(td)
	}
}

// busy is a day planned above 90 % of its working time.
func busy(t techDay) bool { return t.Planned*10 > t.Available*9 }
