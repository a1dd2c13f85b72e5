package store

import (
	"context"
	"encoding/json"
	"math"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// EventFilter narrows RecentEvents.
type EventFilter struct {
	Name  string          // "": every event
	After workshop.Micros // events that occurred after this instant only
}

// RecentEvents lists the outbox events the caller sees (its organisation;
// a location key its location's), newest first, test events left out: a
// receiver that missed deliveries catches up from them.
func (s *Store) RecentEvents(ctx context.Context, v Visibility, f EventFilter, p workshop.PageRequest) (workshop.Page[Event], error) {
	before := workshop.Cursor{CreatedAt: math.MaxInt64}
	if p.After != nil {
		before = *p.After
	}
	return queryPage(ctx, s, `SELECT seq, id, org_id, location_id, event, occurred_at, data FROM events
		WHERE org_id = ? AND (? = '' OR location_id = ?) AND event <> ? AND (? = '' OR event = ?) AND occurred_at > ?
		AND (occurred_at, id) < (?, ?) ORDER BY occurred_at DESC, id DESC`,
		[]any{v.OrgID, v.LocationID, v.LocationID, workshop.EventPing, f.Name, f.Name, f.After, before.CreatedAt, before.ID}, p,
		scanEvent, func(e Event) workshop.Cursor { return workshop.Cursor{CreatedAt: e.OccurredAt, ID: e.ID} })
}

func scanEvent(sc scanner) (Event, error) {
	var e Event
	var data string
	err := sc.Scan(&e.Seq, &e.ID, &e.OrgID, &e.LocationID, &e.Name, &e.OccurredAt, &data)
	e.Data = json.RawMessage(data)
	return e, err
}
