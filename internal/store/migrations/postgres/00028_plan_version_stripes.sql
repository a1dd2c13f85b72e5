-- +goose Up
-- The plan version (migration 00009) was one row per location, so every
-- write to a location's steps and jobs updated the same row and concurrent
-- writes of one location queued on its row lock until commit. The version
-- is now the sum of eight stripes; a transaction moves the stripe of its
-- backend (pg_backend_pid() % 8, the same stripe for all its statements), so
-- writes on different connections rarely wait for each other. The sum still
-- moves with every committed change, which is all the plan cache and the
-- promise watch need: a plan is reused only while the sum it was computed at
-- is the sum. plan_versions becomes a view of the sums, so its readers keep
-- their queries; the plan apply and the promise watch's look lock the stripes
-- themselves (store/planapply.go, store/promisewatch.go).
-- SQLite serialises writers anyway and keeps the single row.
CREATE TABLE plan_version_stripes (
    location_id  TEXT NOT NULL REFERENCES locations(id),
    stripe       SMALLINT NOT NULL,
    version      BIGINT NOT NULL,
    PRIMARY KEY (location_id, stripe)
);
INSERT INTO plan_version_stripes (location_id, stripe, version)
    SELECT p.location_id, s.stripe, CASE WHEN s.stripe = 0 THEN p.version ELSE 0 END
    FROM plan_versions p CROSS JOIN generate_series(0, 7) AS s(stripe);
DROP TABLE plan_versions;
CREATE VIEW plan_versions AS
    SELECT location_id, SUM(version)::BIGINT AS version FROM plan_version_stripes GROUP BY location_id;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_location_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO plan_version_stripes (location_id, stripe, version)
        SELECT n.id, s.stripe, CASE WHEN s.stripe = 0 THEN 1 ELSE 0 END
        FROM new_rows n CROSS JOIN generate_series(0, 7) AS s(stripe);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_location_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_version_stripes SET version = version + 1
        WHERE location_id IN (SELECT id FROM new_rows) AND stripe = pg_backend_pid() % 8;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_new_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_version_stripes SET version = version + 1
        WHERE location_id IN (SELECT DISTINCT location_id FROM new_rows) AND stripe = pg_backend_pid() % 8;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_old_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_version_stripes SET version = version + 1
        WHERE location_id IN (SELECT DISTINCT location_id FROM old_rows) AND stripe = pg_backend_pid() % 8;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- The promise watch's change mark (migration 00022) was set by a trigger
-- on the plan_versions row with an upsert, which locked the location's
-- watch row in every write. It now follows the stripes and updates the
-- mark only while none is set, so a write takes no lock there once a
-- change waits. A look that clears the mark locks the stripes first
-- (store/promisewatch.go): a write still in flight holds its stripe, so the
-- look waits for it and sees its version, and a write after the look finds
-- the mark cleared and sets it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until, changed_at)
        VALUES (NEW.location_id, 0, 0, '', 0, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
        ON CONFLICT (location_id) DO NOTHING;
    ELSE
        UPDATE promise_watch SET changed_at = (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
        WHERE location_id = NEW.location_id AND changed_at IS NULL;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER plan_version_stripes_watch AFTER INSERT OR UPDATE OF version ON plan_version_stripes
    FOR EACH ROW EXECUTE FUNCTION plan_version_watch();

-- +goose Down
DROP VIEW plan_versions;
CREATE TABLE plan_versions (
    location_id  TEXT PRIMARY KEY REFERENCES locations(id),
    version      BIGINT NOT NULL
);
INSERT INTO plan_versions (location_id, version)
    SELECT location_id, SUM(version) FROM plan_version_stripes GROUP BY location_id;
DROP TABLE plan_version_stripes;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_watch() RETURNS trigger LANGUAGE plpgsql AS $$
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_location_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO plan_versions (location_id, version) SELECT id, 1 FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_location_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT id FROM new_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_new_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT DISTINCT location_id FROM new_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION plan_version_old_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE plan_versions SET version = version + 1 WHERE location_id IN (SELECT DISTINCT location_id FROM old_rows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
