package webapp

import (
	"context"
	"fmt"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// leftOpen is the board's note that the last working day was not closed
// while work from it is still open: the morning after, the person who
// closes days sees it first thing, with the way to close that day.
type leftOpen struct {
	Day, What, ClosePath string
}

// leftOpen reads the note for location loc: nil when the day before is
// closed or nothing from before today is still open.
func (a *App) leftOpen(ctx context.Context, loc *workshop.Location) (*leftOpen, error) {
	days, err := a.op.DaysToClose(ctx, loc.ID)
	if err != nil || days.Before == "" {
		return nil, err
	}
	zone, err := loc.Zone()
	if err != nil {
		return nil, err
	}
	midnight, _, err := workshop.DayBounds(days.Today, zone)
	if err != nil {
		return nil, err
	}
	steps, clocked, err := a.store.LeftOpen(ctx, loc.ID, workshop.MicrosOf(midnight))
	if err != nil || steps+clocked == 0 {
		return nil, err
	}
	var what []string
	if steps > 0 {
		what = append(what, fmt.Sprintf("%d step%s in progress", steps, plural(steps)))
	}
	if clocked > 0 {
		what = append(what, fmt.Sprintf("%d technician%s clocked in", clocked, plural(clocked)))
	}
	return &leftOpen{Day: longDate(days.Before), What: strings.Join(what, " and "), ClosePath: dayClosePath(loc.ID)}, nil
}
