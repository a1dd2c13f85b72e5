-- +goose Up
-- The promise watch at scale (issue 30): a location is looked at when it
-- changed or when time alone could turn one of its jobs, never every
-- minute. changed_at: when a change moved its plan version since its last
-- look (NULL: none waits); set by the trigger below with the plan version,
-- in the writer's transaction, so no change escapes. due_at: when time
-- alone next needs a look (computed by the watch from the plan). Both are
-- indexed: the watch's poll reads only the locations due.
ALTER TABLE promise_watch ADD COLUMN changed_at BIGINT;
ALTER TABLE promise_watch ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
    SELECT location_id, 0, 0, '', 0 FROM plan_versions ON CONFLICT DO NOTHING;
UPDATE promise_watch SET changed_at = (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
CREATE INDEX promise_watch_changed ON promise_watch (changed_at) WHERE changed_at IS NOT NULL;
CREATE INDEX promise_watch_due ON promise_watch (due_at);

-- +goose StatementBegin
CREATE FUNCTION plan_version_watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until, changed_at)
    VALUES (NEW.location_id, 0, 0, '', 0, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
    ON CONFLICT (location_id) DO UPDATE SET changed_at = COALESCE(promise_watch.changed_at, excluded.changed_at);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER plan_versions_watch AFTER INSERT OR UPDATE OF version ON plan_versions
    FOR EACH ROW EXECUTE FUNCTION plan_version_watch();

-- +goose Down
DROP TRIGGER plan_versions_watch ON plan_versions;
DROP FUNCTION plan_version_watch();
DROP INDEX promise_watch_due;
DROP INDEX promise_watch_changed;
ALTER TABLE promise_watch DROP COLUMN due_at;
ALTER TABLE promise_watch DROP COLUMN changed_at;
