-- +goose Up
-- Real shop calendars (contract section 4): a technician's weekly working
-- hours (NULL: the location's working time), technicians' absences and
-- bays' maintenance windows. start/end keep the offset they were sent
-- with; *_us are the instants; first_date/last_date are the local dates
-- the period touches in the location's zone, which a list's from/to
-- compare. Each write moves the location's plan version (migration 00009)
-- so that the plan and the promise watch recompute.
ALTER TABLE technicians ADD COLUMN working_hours TEXT;

CREATE TABLE absences (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    location_id  TEXT NOT NULL REFERENCES locations(id),
    tech_id      TEXT NOT NULL REFERENCES technicians(id),
    start_at     TEXT NOT NULL,
    start_us     INTEGER NOT NULL,
    end_at       TEXT NOT NULL,
    end_us       INTEGER NOT NULL,
    first_date   TEXT NOT NULL,
    last_date    TEXT NOT NULL,
    reason       TEXT NOT NULL,
    note         TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX absences_location ON absences (location_id, created_at, id);
CREATE INDEX absences_org ON absences (org_id, created_at, id);
CREATE INDEX absences_tech ON absences (tech_id, start_us);

CREATE TABLE bay_maintenance_windows (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL,
    location_id  TEXT NOT NULL REFERENCES locations(id),
    bay_id       TEXT NOT NULL REFERENCES bays(id),
    start_at     TEXT NOT NULL,
    start_us     INTEGER NOT NULL,
    end_at       TEXT NOT NULL,
    end_us       INTEGER NOT NULL,
    first_date   TEXT NOT NULL,
    last_date    TEXT NOT NULL,
    reason       TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX bay_maintenance_windows_location ON bay_maintenance_windows (location_id, created_at, id);
CREATE INDEX bay_maintenance_windows_org ON bay_maintenance_windows (org_id, created_at, id);
CREATE INDEX bay_maintenance_windows_bay ON bay_maintenance_windows (bay_id, start_us);

CREATE TRIGGER absences_insert_plan_version AFTER INSERT ON absences
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
CREATE TRIGGER absences_delete_plan_version AFTER DELETE ON absences
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = OLD.location_id; END;
CREATE TRIGGER bay_maintenance_windows_insert_plan_version AFTER INSERT ON bay_maintenance_windows
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
CREATE TRIGGER bay_maintenance_windows_delete_plan_version AFTER DELETE ON bay_maintenance_windows
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = OLD.location_id; END;

-- Jobs' drop-off time and whom to call (contract section 4).
ALTER TABLE jobs ADD COLUMN expected_arrival TEXT;
ALTER TABLE jobs ADD COLUMN customer_name TEXT;
ALTER TABLE jobs ADD COLUMN customer_phone TEXT;
ALTER TABLE jobs ADD COLUMN customer_email TEXT;

-- How long closed jobs keep their customer fields (NULL: kept), and when
-- each location's daily erasing sweep is next due (one process claims it).
ALTER TABLE workshop_settings ADD COLUMN customer_data_retention_days INTEGER;
CREATE TABLE retention_sweeps (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    due_at       INTEGER NOT NULL
);

-- +goose Down
DROP TABLE retention_sweeps;
ALTER TABLE workshop_settings DROP COLUMN customer_data_retention_days;
ALTER TABLE jobs DROP COLUMN customer_email;
ALTER TABLE jobs DROP COLUMN customer_phone;
ALTER TABLE jobs DROP COLUMN customer_name;
ALTER TABLE jobs DROP COLUMN expected_arrival;
DROP TABLE bay_maintenance_windows;
DROP TABLE absences;
ALTER TABLE technicians DROP COLUMN working_hours;
