package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Event data was written by encoding/json from maps; the rows must give the
// same bytes: names sorted, each once, values encoded alike.
func TestEventRowsAreWrittenAsMaps(t *testing.T) {
	t.Parallel()
	tricky := "<b>\"R&D\"</b>\u2028\xff\n"
	at := workshop.Micros(1_795_000_000_123_456)
	when := &workshop.OffsetTime{Time: time.Date(2026, 11, 21, 9, 30, 0, 0, time.FixedZone("", 3600))}
	full := workshop.Job{ID: "job_1", OrgID: "org_1", LocationID: "loc_1", IntegrationID: "int_1", ExternalKey: &tricky,
		JobNumber: "RO-2026-0001", VehiclePlate: &tricky, VehicleMake: &tricky, VehicleModel: &tricky, PromiseTime: when,
		Priority: "high", Source: "dms", ArrivalTime: when, InsuranceClaim: &tricky, Status: "cancelled", DeliveredAt: &at,
		CancelledAt: &at, CancelReasons: []string{"no_show", tricky}, CreatedAt: at, UpdatedAt: at}
	step := workshop.Step{ID: "stp_1", JobID: "job_1", OrgID: "org_1", LocationID: "loc_1", Label: tricky, Phase: -2,
		SchedulingMode: "parallel", EstimatedDuration: 90, TechIDs: []string{"tec_1", "tec_2"}, BayID: &tricky,
		Status: "completed", StartedAt: &at, CompletedAt: &at, CreatedAt: at, UpdatedAt: at}
	rows := map[string]eventRow{
		"full job":     jobRow(full),
		"empty job":    jobRow(workshop.Job{}),
		"full step":    stepRow(step),
		"empty step":   stepRow(workshop.Step{}),
		"bay":          bayRow(workshop.Bay{ID: "bay_1", Name: tricky, Equipment: []string{"lift"}, Services: nil, CreatedAt: at}),
		"attendance":   attendanceRow(workshop.Attendance{ID: "att_1", TechID: "tec_1", WorkDate: "2026-11-21", ClockIn: *when, ClockOut: when}),
		"open shift":   attendanceRow(workshop.Attendance{ID: "att_2", ClockIn: *when}),
		"other values": {{"a", 1.5}, {"b", map[string]int{"x": 1}}, {"c", true}},
	}
	for name, r := range rows {
		m := map[string]any{}
		for _, c := range r {
			m[c.name] = c.value
		}
		if len(m) != len(r) {
			t.Errorf("%s: %d columns, %d names: a name is repeated", name, len(r), len(m))
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s: json.Marshal: %v", name, err)
		}
		got, err := r.appendJSON(nil)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s:\n got %s, %v\nwant %s", name, got, err, want)
		}
	}
}
