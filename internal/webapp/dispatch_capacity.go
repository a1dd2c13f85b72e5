package webapp

import (
	"context"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
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

// capacity is the capacity of days dates from the local midnight from:
// the planning service's (GET /v1/scheduler/capacity), of the plan p of
// the same minute.
func (a *App) capacity(ctx context.Context, p *planning.Plan, from time.Time, days int, now time.Time) ([]capacityDay, error) {
	cs, err := a.plans.Capacity(ctx, p.LocationID, now, from.Format(time.DateOnly), days)
	if err != nil {
		return nil, err
	}
	out := make([]capacityDay, 0, len(cs))
	for _, c := range cs {
		cd := capacityDay{Date: c.Date.Format(time.DateOnly), Techs: map[string]techDay{}}
		for _, t := range c.Technicians {
			cd.Techs[t.TechID] = techDay{Available: t.Available, Planned: t.Planned}
		}
		out = append(out, cd)
	}
	return out, nil
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
