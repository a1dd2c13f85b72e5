-- +goose Up
-- Clock-in and clock-out of technicians. clock_in and clock_out are the
-- RFC 3339 text with the location's offset at that instant; the _us columns
-- are their UTC microseconds for queries; work_date is the local date.
CREATE TABLE attendance (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL,
    location_id    TEXT NOT NULL REFERENCES locations(id),
    tech_id        TEXT NOT NULL REFERENCES technicians(id),
    work_date      TEXT NOT NULL,
    clock_in       TEXT NOT NULL,
    clock_in_us    INTEGER NOT NULL,
    clock_out      TEXT,
    clock_out_us   INTEGER,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX attendance_tech ON attendance (tech_id, clock_in_us);
CREATE INDEX attendance_location ON attendance (location_id, work_date);
-- At most one open record per technician.
CREATE UNIQUE INDEX attendance_open ON attendance (tech_id) WHERE clock_out IS NULL;

-- +goose Down
DROP TABLE attendance;
