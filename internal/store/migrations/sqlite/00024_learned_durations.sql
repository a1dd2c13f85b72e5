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
CREATE TABLE duration_versions (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    version      INTEGER NOT NULL
);
INSERT INTO duration_versions (location_id, version) SELECT id, 1 FROM locations;

-- +goose StatementBegin
CREATE TRIGGER locations_insert_duration_version AFTER INSERT ON locations
BEGIN INSERT INTO duration_versions (location_id, version) VALUES (NEW.id, 1); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER steps_update_duration_version AFTER UPDATE ON steps
WHEN NEW.status = 'completed' AND NEW.service_code IS NOT NULL AND (OLD.status <> 'completed'
    OR OLD.started_at IS NOT NEW.started_at OR OLD.completed_at IS NOT NEW.completed_at)
BEGIN UPDATE duration_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER workshop_settings_update_duration_version AFTER UPDATE ON workshop_settings
WHEN OLD.operating_hours IS NOT NEW.operating_hours OR OLD.breaks IS NOT NEW.breaks
BEGIN UPDATE duration_versions SET version = version + 1 WHERE location_id = NEW.location_id; END;
-- +goose StatementEnd

-- The samples of a location: its completed steps of catalog items, by end.
CREATE INDEX steps_duration_samples ON steps (location_id, completed_at)
    WHERE status = 'completed' AND service_code IS NOT NULL;

-- +goose Down
DROP INDEX steps_duration_samples;
DROP TRIGGER workshop_settings_update_duration_version;
DROP TRIGGER steps_update_duration_version;
DROP TRIGGER locations_insert_duration_version;
DROP TABLE duration_versions;
ALTER TABLE workshop_settings DROP COLUMN planning_durations;
