-- +goose Up
-- A plan version moved while a change already waits for the promise watch
-- (changed_at set) no longer rewrites changed_at with its own value: the
-- trigger of migration 00022 did, on every job and step write, a second
-- update of the row for nothing (issue 29: the writer's time per create).
DROP TRIGGER plan_versions_update_watch;
-- +goose StatementBegin
CREATE TRIGGER plan_versions_update_watch AFTER UPDATE OF version ON plan_versions
WHEN NEW.changed_at IS NULL
BEGIN
    UPDATE plan_versions SET changed_at = CAST(unixepoch('subsec') * 1000000 AS INTEGER)
    WHERE location_id = NEW.location_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER plan_versions_update_watch;
-- +goose StatementBegin
CREATE TRIGGER plan_versions_update_watch AFTER UPDATE OF version ON plan_versions
BEGIN
    UPDATE plan_versions SET changed_at = COALESCE(changed_at, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
    WHERE location_id = NEW.location_id;
END;
-- +goose StatementEnd
