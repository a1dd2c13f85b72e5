-- +goose Up
-- The promise watch at scale (issue 30): a location is looked at when it
-- changed or when time alone could turn one of its jobs, never every
-- minute. plan_versions.changed_at: when a change moved the plan version
-- since the watch's last look (NULL: none waits), set with the version in
-- the writer's transaction, so no change escapes; it lives on the row the
-- writer locks already, so writers never wait on the watch's rows.
-- promise_watch.due_at: when time alone next needs a look (computed by
-- the watch from the plan). Both are indexed: the watch's poll reads only
-- the locations due.
ALTER TABLE plan_versions ADD COLUMN changed_at INTEGER;
ALTER TABLE promise_watch ADD COLUMN due_at INTEGER NOT NULL DEFAULT 0;
INSERT OR IGNORE INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
    SELECT location_id, 0, 0, '', 0 FROM plan_versions;
UPDATE plan_versions SET changed_at = CAST(unixepoch('subsec') * 1000000 AS INTEGER);
CREATE INDEX plan_versions_changed ON plan_versions (changed_at) WHERE changed_at IS NOT NULL;
CREATE INDEX promise_watch_due ON promise_watch (due_at);

-- +goose StatementBegin
CREATE TRIGGER plan_versions_insert_watch AFTER INSERT ON plan_versions
BEGIN
    INSERT OR IGNORE INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
    VALUES (NEW.location_id, 0, 0, '', 0);
    UPDATE plan_versions SET changed_at = CAST(unixepoch('subsec') * 1000000 AS INTEGER) WHERE location_id = NEW.location_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER plan_versions_update_watch AFTER UPDATE OF version ON plan_versions
BEGIN
    UPDATE plan_versions SET changed_at = COALESCE(changed_at, CAST(unixepoch('subsec') * 1000000 AS INTEGER))
    WHERE location_id = NEW.location_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER plan_versions_update_watch;
DROP TRIGGER plan_versions_insert_watch;
DROP INDEX promise_watch_due;
DROP INDEX plan_versions_changed;
ALTER TABLE promise_watch DROP COLUMN due_at;
ALTER TABLE plan_versions DROP COLUMN changed_at;
