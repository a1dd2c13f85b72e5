package store

import (
	"context"
	"encoding/json"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// recordEvent writes an event to the outbox in the transaction of the
// change it reports: it is committed exactly when the change is.
func recordEvent(ctx context.Context, c conn, orgID, locationID, name string, at workshop.Micros, row map[string]any) error {
	data, err := json.Marshal(row)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, `INSERT INTO events (id, org_id, location_id, event, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?)`,
		workshop.NewID(workshop.PrefixEvent), orgID, locationID, name, at, string(data))
	if err == nil && c.ev != nil {
		c.ev.n++
	}
	return err
}

// Event is an outbox row.
type Event struct {
	Seq        int64
	ID         string
	OrgID      string
	LocationID string
	Name       string
	OccurredAt workshop.Micros
	Data       json.RawMessage
}

// EventsAfter lists outbox events after seq, oldest first (tests, and the
// webhook dispatcher).
func (s *Store) EventsAfter(ctx context.Context, seq int64, limit int) ([]Event, error) {
	rows, err := s.read().query(ctx, `SELECT seq, id, org_id, location_id, event, occurred_at, data FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (Event, error) {
		var e Event
		var data string
		err := sc.Scan(&e.Seq, &e.ID, &e.OrgID, &e.LocationID, &e.Name, &e.OccurredAt, &data)
		e.Data = json.RawMessage(data)
		return e, err
	})
}

// microsOrNil renders an optional audit timestamp of a stored row.
func microsOrNil(m *workshop.Micros) any {
	if m == nil {
		return nil
	}
	return m.String()
}

// offsetOrNil renders an optional offset time of a stored row as stored.
func offsetOrNil(t *workshop.OffsetTime) any {
	if t == nil {
		return nil
	}
	return t.String()
}

// jobRow is the jobs row as stored, every column by its name, for events.
// Audit timestamps are shown in the audit format, JSON columns decoded;
// promise_time_us, the integer copy of promise_time kept for queries, is
// left out. TestEventRowsHaveEveryColumn keeps it complete.
func jobRow(j workshop.Job) map[string]any {
	return map[string]any{
		"id": j.ID, "org_id": j.OrgID, "location_id": j.LocationID, "integration_id": j.IntegrationID,
		"external_key": j.ExternalKey, "job_number": j.JobNumber, "vehicle_plate": j.VehiclePlate,
		"vehicle_make": j.VehicleMake, "vehicle_model": j.VehicleModel, "promise_time": offsetOrNil(j.PromiseTime),
		"priority": j.Priority, "source": j.Source, "arrival_time": offsetOrNil(j.ArrivalTime),
		"insurance_claim": j.InsuranceClaim, "status": j.Status, "delivered_at": microsOrNil(j.DeliveredAt),
		"cancelled_at": microsOrNil(j.CancelledAt), "cancel_reason_tags": j.CancelReasons,
		"created_at": j.CreatedAt.String(), "updated_at": j.UpdatedAt.String(),
	}
}

// stepRow is the steps row as stored, for events.
func stepRow(st workshop.Step) map[string]any {
	return map[string]any{
		"id": st.ID, "job_id": st.JobID, "org_id": st.OrgID, "location_id": st.LocationID, "label": st.Label,
		"phase": st.Phase, "scheduling_mode": st.SchedulingMode, "estimated_duration": st.EstimatedDuration,
		"tech_ids": st.TechIDs, "bay_id": st.BayID, "status": st.Status, "started_at": microsOrNil(st.StartedAt),
		"completed_at": microsOrNil(st.CompletedAt), "created_at": st.CreatedAt.String(), "updated_at": st.UpdatedAt.String(),
	}
}
