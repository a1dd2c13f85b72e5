-- +goose Up
-- Learning from the shop floor (contract section 9). The setting that says
-- which duration the plan and the availability quote give a step.
ALTER TABLE workshop_settings ADD COLUMN planning_durations TEXT NOT NULL DEFAULT 'estimate';

-- A location's catalog items' durationStats are computed from its
-- completed steps (store/durations.go) and kept in each process under the
-- location's duration version, which triggers move whenever a step's
-- sample comes, changes or is measured differently: a step of a catalog
-- item completes, a completed one has its actual times corrected, or the
-- working hours change. So the statistics are read again only after such
-- a write, by whichever process made it, and plans read them for nothing.
-- Once a statement, as the plan version's triggers (00009).
CREATE TABLE duration_versions (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    version      BIGINT NOT NULL
);
INSERT INTO duration_versions (location_id, version) SELECT id, 1 FROM locations;

-- +goose StatementBegin
CREATE FUNCTION duration_version_location_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO duration_versions (location_id, version) SELECT id, 1 FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION duration_version_steps() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE duration_versions SET version = version + 1 WHERE location_id IN (
        SELECT DISTINCT n.location_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.status = 'completed' AND n.service_code IS NOT NULL AND (o.status <> 'completed'
            OR o.started_at IS DISTINCT FROM n.started_at OR o.completed_at IS DISTINCT FROM n.completed_at));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION duration_version_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE duration_versions SET version = version + 1 WHERE location_id IN (
        SELECT n.location_id FROM new_rows n JOIN old_rows o ON o.location_id = n.location_id
        WHERE o.operating_hours IS DISTINCT FROM n.operating_hours OR o.breaks IS DISTINCT FROM n.breaks);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER locations_insert_duration_version AFTER INSERT ON locations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION duration_version_location_insert();
CREATE TRIGGER steps_update_duration_version AFTER UPDATE ON steps
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION duration_version_steps();
CREATE TRIGGER workshop_settings_update_duration_version AFTER UPDATE ON workshop_settings
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION duration_version_settings();

-- The samples of a location: its completed steps of catalog items, by end.
CREATE INDEX steps_duration_samples ON steps (location_id, completed_at)
    WHERE status = 'completed' AND service_code IS NOT NULL;

-- +goose Down
DROP INDEX steps_duration_samples;
DROP TRIGGER workshop_settings_update_duration_version ON workshop_settings;
DROP TRIGGER steps_update_duration_version ON steps;
DROP TRIGGER locations_insert_duration_version ON locations;
DROP FUNCTION duration_version_settings();
DROP FUNCTION duration_version_steps();
DROP FUNCTION duration_version_location_insert();
DROP TABLE duration_versions;
ALTER TABLE workshop_settings DROP COLUMN planning_durations;
