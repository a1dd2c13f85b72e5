-- +goose Up
-- Planning (contract section 8). A step may name the catalog item it was
-- made from; its required skills are that item's.
ALTER TABLE steps ADD COLUMN service_code TEXT;

-- The plan version of a location moves with every change to what its plan
-- is computed from: its jobs, steps, technicians, bays, catalog and
-- settings. The plan cache (plan.go) and the promise watch compare it to
-- know whether a plan they hold is still the plan. Triggers move it, so no
-- write, by this service, by `workshop admin` in another process or by
-- hand, can change a plan and leave it unmoved.
CREATE TABLE plan_versions (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    version      INTEGER NOT NULL
);
INSERT INTO plan_versions (location_id, version) SELECT id, 1 FROM locations;

-- +goose StatementBegin
CREATE TRIGGER locations_insert_plan_version AFTER INSERT ON locations
BEGIN INSERT INTO plan_versions (location_id, version) VALUES (NEW.id, 1); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER locations_update_plan_version AFTER UPDATE ON locations
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_insert_plan_version AFTER INSERT ON jobs
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_update_plan_version AFTER UPDATE ON jobs
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER steps_insert_plan_version AFTER INSERT ON steps
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER steps_update_plan_version AFTER UPDATE ON steps
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER technicians_insert_plan_version AFTER INSERT ON technicians
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER technicians_update_plan_version AFTER UPDATE ON technicians
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER technicians_delete_plan_version AFTER DELETE ON technicians
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = OLD.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bays_insert_plan_version AFTER INSERT ON bays
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bays_update_plan_version AFTER UPDATE ON bays
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bays_delete_plan_version AFTER DELETE ON bays
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = OLD.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER catalog_items_insert_plan_version AFTER INSERT ON catalog_items
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER catalog_items_update_plan_version AFTER UPDATE ON catalog_items
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER catalog_items_delete_plan_version AFTER DELETE ON catalog_items
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = OLD.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER workshop_settings_insert_plan_version AFTER INSERT ON workshop_settings
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER workshop_settings_update_plan_version AFTER UPDATE ON workshop_settings
BEGIN UPDATE plan_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd

-- The promise watch (store/promisewatch.go): per location, the plan
-- version and minute it last checked and who holds it now, so that one
-- process at a time checks a location, at most once a second; and the jobs
-- last seen at risk (a job without a row was on track), so that each turn
-- is told once.
CREATE TABLE promise_watch (
    location_id      TEXT PRIMARY KEY REFERENCES locations(id),
    checked_version  INTEGER NOT NULL,
    checked_minute   INTEGER NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_until      INTEGER NOT NULL
);
CREATE TABLE job_promises (
    job_id                TEXT PRIMARY KEY REFERENCES jobs(id),
    location_id           TEXT NOT NULL,
    projected_completion  TEXT,
    late_minutes          INTEGER NOT NULL,
    at_risk_since         INTEGER NOT NULL
);
CREATE INDEX job_promises_location ON job_promises (location_id);

-- +goose Down
DROP TABLE job_promises;
DROP TABLE promise_watch;
DROP TRIGGER workshop_settings_update_plan_version;
DROP TRIGGER workshop_settings_insert_plan_version;
DROP TRIGGER catalog_items_delete_plan_version;
DROP TRIGGER catalog_items_update_plan_version;
DROP TRIGGER catalog_items_insert_plan_version;
DROP TRIGGER bays_delete_plan_version;
DROP TRIGGER bays_update_plan_version;
DROP TRIGGER bays_insert_plan_version;
DROP TRIGGER technicians_delete_plan_version;
DROP TRIGGER technicians_update_plan_version;
DROP TRIGGER technicians_insert_plan_version;
DROP TRIGGER steps_update_plan_version;
DROP TRIGGER steps_insert_plan_version;
DROP TRIGGER jobs_update_plan_version;
DROP TRIGGER jobs_insert_plan_version;
DROP TRIGGER locations_update_plan_version;
DROP TRIGGER locations_insert_plan_version;
DROP TABLE plan_versions;
ALTER TABLE steps DROP COLUMN service_code;
