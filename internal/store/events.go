package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/workshop-platform/workshop/internal/jsonenc"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// recordEvent writes an event to the outbox in the transaction of the
// change it reports: it is committed exactly when the change is.
func recordEvent(ctx context.Context, c conn, orgID, locationID, name string, at workshop.Micros, r eventRow) error {
	args, err := eventArgs(nil, orgID, locationID, name, at, r)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, eventInsert+valueRows(1, eventWidth), args...)
	if err == nil && c.ev != nil {
		c.ev.n++
	}
	return err
}

// eventInsert inserts events rows of eventWidth values each, eventArgs's.
const (
	eventInsert = `INSERT INTO events (id, org_id, location_id, event, occurred_at, data) VALUES `
	eventWidth  = 6
)

// eventArgs appends the values of a new event's row to args.
func eventArgs(args []any, orgID, locationID, name string, at workshop.Micros, r eventRow) ([]any, error) {
	data, err := r.appendJSON(make([]byte, 0, 1024))
	if err != nil {
		return args, err
	}
	return append(args, workshop.NewID(workshop.PrefixEvent), orgID, locationID, name, at, string(data)), nil
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
	return collect(rows, scanEvent)
}

// eventRow is a stored row for an event's data: its columns by name, in the
// order encoding/json writes a map's keys (sorted), which is how event data
// has always been written. TestEventRowsAreWrittenAsMaps keeps the builders
// sorted and the bytes those of encoding/json.
type eventRow []column

type column struct {
	name  string
	value any // nil, string, *string, []string or int; others through encoding/json
}

// appendJSON writes the row as a JSON object.
func (r eventRow) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, c := range r {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonenc.String(b, c.name), ':')
		switch v := c.value.(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			b = jsonenc.String(b, v)
		case *string:
			if v == nil {
				b = append(b, "null"...)
			} else {
				b = jsonenc.String(b, *v)
			}
		case []string:
			b = jsonenc.Strings(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			data, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("event row column %s: %w", c.name, err)
			}
			b = append(b, data...)
		}
	}
	return append(b, '}'), nil
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

// timeOrNil is an optional time with its offset, or nil.
func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Format(time.RFC3339Nano)
}

// jobRow is the jobs row as stored, every column by its name, for events.
// Audit timestamps are shown in the audit format, JSON columns decoded;
// promise_time_us, the integer copy of promise_time kept for queries, is
// left out. TestEventRowsHaveEveryColumn keeps it complete.
func jobRow(j workshop.Job) eventRow {
	return eventRow{
		{"arrival_time", offsetOrNil(j.ArrivalTime)}, {"cancel_reason_tags", j.CancelReasons},
		{"cancelled_at", microsOrNil(j.CancelledAt)}, {"created_at", j.CreatedAt.String()},
		{"customer_email", j.CustomerEmail}, {"customer_name", j.CustomerName}, {"customer_phone", j.CustomerPhone},
		{"delivered_at", microsOrNil(j.DeliveredAt)}, {"expected_arrival", timeOrNil(j.ExpectedArrival)}, {"external_key", j.ExternalKey}, {"id", j.ID},
		{"insurance_claim", j.InsuranceClaim}, {"integration_id", j.IntegrationID}, {"job_number", j.JobNumber},
		{"location_id", j.LocationID}, {"org_id", j.OrgID}, {"priority", j.Priority},
		{"promise_time", offsetOrNil(j.PromiseTime)}, {"source", j.Source}, {"status", j.Status},
		{"updated_at", j.UpdatedAt.String()}, {"vehicle_make", j.VehicleMake}, {"vehicle_model", j.VehicleModel},
		{"vehicle_plate", j.VehiclePlate},
	}
}

// stepRow is the steps row as stored, for events.
func stepRow(st workshop.Step) eventRow {
	return eventRow{
		{"bay_id", st.BayID}, {"completed_at", microsOrNil(st.CompletedAt)}, {"created_at", st.CreatedAt.String()},
		{"estimated_duration", st.EstimatedDuration}, {"id", st.ID}, {"job_id", st.JobID}, {"label", st.Label},
		{"location_id", st.LocationID}, {"not_before", offsetOrNil(st.NotBefore)}, {"org_id", st.OrgID}, {"phase", st.Phase},
		{"scheduling_mode", st.SchedulingMode}, {"service_code", st.ServiceCode},
		{"started_at", microsOrNil(st.StartedAt)}, {"status", st.Status}, {"tech_ids", st.TechIDs},
		{"updated_at", st.UpdatedAt.String()},
	}
}
