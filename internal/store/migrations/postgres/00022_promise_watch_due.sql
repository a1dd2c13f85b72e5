-- +goose Up
-- The promise watch at scale (issue 30): a location is looked at when it
-- changed or when time alone could turn one of its jobs, never every
-- minute. plan_versions.changed_at: when a change moved the plan version
-- since the watch's last look (NULL: none waits), set with the version in
-- the writer's transaction, so no change escapes; it lives on the row the
-- writer locks already, so writers never wait on the watch's rows (a
-- writer locking promise_watch deadlocked with a look holding it).
-- promise_watch.due_at: when time alone next needs a look (computed by
-- the watch from the plan). Both are indexed: the watch's poll reads only
-- the locations due.
ALTER TABLE plan_versions ADD COLUMN changed_at BIGINT;
ALTER TABLE promise_watch ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
    SELECT location_id, 0, 0, '', 0 FROM plan_versions ON CONFLICT DO NOTHING;
UPDATE plan_versions SET changed_at = (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
CREATE INDEX plan_versions_changed ON plan_versions (changed_at) WHERE changed_at IS NOT NULL;
CREATE INDEX promise_watch_due ON promise_watch (due_at);

-- +goose StatementBegin
CREATE FUNCTION plan_version_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
        VALUES (NEW.location_id, 0, 0, '', 0) ON CONFLICT DO NOTHING;
    END IF;
    NEW.changed_at := COALESCE(NEW.changed_at, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER plan_versions_changed BEFORE INSERT OR UPDATE OF version ON plan_versions
    FOR EACH ROW EXECUTE FUNCTION plan_version_changed();

-- +goose Down
DROP TRIGGER plan_versions_changed ON plan_versions;
DROP FUNCTION plan_version_changed();
DROP INDEX promise_watch_due;
DROP INDEX plan_versions_changed;
ALTER TABLE promise_watch DROP COLUMN due_at;
ALTER TABLE plan_versions DROP COLUMN changed_at;
