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
-- their queries; the plan apply locks the stripes themselves (store/planapply.go).
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
