-- +goose Up
-- Planning (contract section 8). A step may name the catalog item it was
-- made from; its required skills are that item's.
ALTER TABLE steps ADD COLUMN service_code TEXT;

-- The plan version of a location moves with every change to what its plan
-- is computed from: its jobs, steps, technicians, bays, catalog and
-- settings. The plan cache (plan.go) and the promise watch compare it to
-- know whether a plan they hold is still the plan. Triggers move it, so no
-- write, by this service, by `workshop admin` in another process or by
-- hand, can change a plan and leave it unmoved. They run once a statement
-- (a grouped write of a hundred steps moves it once), over the locations
-- of the statement's rows; the row lock they take orders the versions of
-- concurrent transactions of a location as their commits are ordered.
CREATE TABLE plan_versions (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    version      BIGINT NOT NULL
);
INSERT INTO plan_versions (location_id, version) SELECT id, 1 FROM locations;

-- +goose StatementBegin
CREATE FUNCTION plan_version_location_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO plan_versions (location_id, version) SELECT id, 1 FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION plan_version_location_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT id FROM new_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION plan_version_new_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT DISTINCT location_id FROM new_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION plan_version_old_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT DISTINCT location_id FROM old_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER locations_insert_plan_version AFTER INSERT ON locations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_location_insert();
CREATE TRIGGER locations_update_plan_version AFTER UPDATE ON locations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_location_update();
CREATE TRIGGER jobs_insert_plan_version AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER jobs_update_plan_version AFTER UPDATE ON jobs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER steps_insert_plan_version AFTER INSERT ON steps
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER steps_update_plan_version AFTER UPDATE ON steps
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER technicians_insert_plan_version AFTER INSERT ON technicians
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER technicians_update_plan_version AFTER UPDATE ON technicians
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER technicians_delete_plan_version AFTER DELETE ON technicians
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_old_rows();
CREATE TRIGGER bays_insert_plan_version AFTER INSERT ON bays
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER bays_update_plan_version AFTER UPDATE ON bays
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER bays_delete_plan_version AFTER DELETE ON bays
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_old_rows();
CREATE TRIGGER catalog_items_insert_plan_version AFTER INSERT ON catalog_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER catalog_items_update_plan_version AFTER UPDATE ON catalog_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER catalog_items_delete_plan_version AFTER DELETE ON catalog_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_old_rows();
CREATE TRIGGER workshop_settings_insert_plan_version AFTER INSERT ON workshop_settings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();
CREATE TRIGGER workshop_settings_update_plan_version AFTER UPDATE ON workshop_settings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION plan_version_new_rows();

-- The promise watch (store/promisewatch.go): per location, the plan
-- version and minute it last checked and who holds it now, so that one
-- process at a time checks a location, at most once a second; and the jobs
-- last seen at risk (a job without a row was on track), so that each turn
-- is told once.
CREATE TABLE promise_watch (
    location_id      TEXT PRIMARY KEY REFERENCES locations(id),
    checked_version  BIGINT NOT NULL,
    checked_minute   BIGINT NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_until      BIGINT NOT NULL
);
CREATE TABLE job_promises (
    job_id                TEXT PRIMARY KEY REFERENCES jobs(id),
    location_id           TEXT NOT NULL,
    projected_completion  TEXT,
    late_minutes          INTEGER NOT NULL,
    at_risk_since         BIGINT NOT NULL
);
CREATE INDEX job_promises_location ON job_promises (location_id);

-- +goose Down
DROP TABLE job_promises;
DROP TABLE promise_watch;
DROP TRIGGER workshop_settings_insert_plan_version ON workshop_settings;
DROP TRIGGER workshop_settings_update_plan_version ON workshop_settings;
DROP TRIGGER catalog_items_insert_plan_version ON catalog_items;
DROP TRIGGER catalog_items_update_plan_version ON catalog_items;
DROP TRIGGER catalog_items_delete_plan_version ON catalog_items;
DROP TRIGGER bays_insert_plan_version ON bays;
DROP TRIGGER bays_update_plan_version ON bays;
DROP TRIGGER bays_delete_plan_version ON bays;
DROP TRIGGER technicians_insert_plan_version ON technicians;
DROP TRIGGER technicians_update_plan_version ON technicians;
DROP TRIGGER technicians_delete_plan_version ON technicians;
DROP TRIGGER steps_insert_plan_version ON steps;
DROP TRIGGER steps_update_plan_version ON steps;
DROP TRIGGER jobs_insert_plan_version ON jobs;
DROP TRIGGER jobs_update_plan_version ON jobs;
DROP TRIGGER locations_insert_plan_version ON locations;
DROP TRIGGER locations_update_plan_version ON locations;
DROP FUNCTION plan_version_old_rows();
DROP FUNCTION plan_version_new_rows();
DROP FUNCTION plan_version_location_update();
DROP FUNCTION plan_version_location_insert();
DROP TABLE plan_versions;
ALTER TABLE steps DROP COLUMN service_code;
