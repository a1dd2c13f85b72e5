-- +goose Up
-- The board (store/board.go) reads a location's job counts from a tally
-- kept current in the writes' own transactions, so that its cost does not
-- grow with the jobs a location keeps open or has finished: per status the
-- jobs, and per UTC day of their promise the open jobs not ready (booked,
-- arrived, in progress, waiting) that have a promise. Late is the second
-- tally's days before today plus today's promises before now, which a
-- partial index below counts. Triggers keep both, so no write by this service, by
-- `workshop admin` or by hand can leave them behind. They run once a
-- statement over its rows (a grouped write of a hundred jobs is one
-- upsert), and are named to run after the jobs' plan version triggers: a
-- transaction then always locks a location's plan version before its
-- tally rows, the order every step write takes them in, so two cannot
-- deadlock over them.
CREATE TABLE board_tally (
    location_id  TEXT NOT NULL,
    status       TEXT NOT NULL,
    n            BIGINT NOT NULL,
    PRIMARY KEY (location_id, status)
);
CREATE TABLE late_tally (
    location_id  TEXT NOT NULL,
    day          BIGINT NOT NULL, -- promise_time_us / 86400000000: UTC days since 1970
    n            BIGINT NOT NULL,
    PRIMARY KEY (location_id, day)
);
INSERT INTO board_tally (location_id, status, n) SELECT location_id, status, COUNT(*) FROM jobs GROUP BY location_id, status;
INSERT INTO late_tally (location_id, day, n)
    SELECT location_id, promise_time_us / 86400000000, COUNT(*) FROM jobs
    WHERE promise_time_us IS NOT NULL AND status IN ('booked', 'arrived', 'in_progress', 'waiting')
    GROUP BY location_id, promise_time_us / 86400000000;

-- Today's late jobs are a range of this partial index (store.Board names
-- its statuses as literals, so that SQLite sees the index applies; a job
-- without a promise, as most walk-ins, stays out of it). A job
-- list filtered by status reads each status's run in created order
-- (store.Jobs), so that its page does not wait behind finished jobs; the
-- location's run serves every read of jobs_location_status as well.
DROP INDEX jobs_location_status;
CREATE INDEX jobs_open_promise ON jobs (location_id, promise_time_us)
    WHERE status IN ('booked', 'arrived', 'in_progress', 'waiting') AND promise_time_us IS NOT NULL;
CREATE INDEX jobs_location_status_created ON jobs (location_id, status, created_at, id);
CREATE INDEX jobs_org_status_created ON jobs (org_id, status, created_at, id);

-- One function tallies a statement's change: -1 for each row as it was,
-- +1 for each row as it is now (which of the two a statement has depends
-- on its kind), then applies the sums in key order.
-- +goose StatementBegin
CREATE FUNCTION jobs_tally() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    locs text[];
    statuses text[];
    promises bigint[];
    ds int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(location_id), array_agg(status), array_agg(promise_time_us), array_agg(1)
            INTO locs, statuses, promises, ds FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(location_id), array_agg(status), array_agg(promise_time_us), array_agg(-1)
            INTO locs, statuses, promises, ds FROM old_rows;
    ELSE
        SELECT array_agg(location_id), array_agg(status), array_agg(promise_time_us), array_agg(d)
            INTO locs, statuses, promises, ds
            FROM (SELECT location_id, status, promise_time_us, -1 AS d FROM old_rows
                UNION ALL SELECT location_id, status, promise_time_us, 1 FROM new_rows) AS changed;
    END IF;
    WITH delta AS (SELECT * FROM unnest(locs, statuses, promises, ds) AS r(location_id, status, promise_time_us, d)),
    b AS (INSERT INTO board_tally (location_id, status, n)
        SELECT location_id, status, SUM(d) FROM delta GROUP BY location_id, status HAVING SUM(d) <> 0 ORDER BY location_id, status
        ON CONFLICT (location_id, status) DO UPDATE SET n = board_tally.n + excluded.n RETURNING 1)
    INSERT INTO late_tally (location_id, day, n)
        SELECT location_id, promise_time_us / 86400000000, SUM(d) FROM delta
        WHERE promise_time_us IS NOT NULL AND status IN ('booked', 'arrived', 'in_progress', 'waiting')
        GROUP BY location_id, promise_time_us / 86400000000 HAVING SUM(d) <> 0 ORDER BY 1, 2
        ON CONFLICT (location_id, day) DO UPDATE SET n = late_tally.n + excluded.n;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER jobs_insert_tally AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_tally();
CREATE TRIGGER jobs_update_tally AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_tally();
CREATE TRIGGER jobs_delete_tally AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_tally();

-- +goose Down
DROP TRIGGER jobs_delete_tally ON jobs;
DROP TRIGGER jobs_update_tally ON jobs;
DROP TRIGGER jobs_insert_tally ON jobs;
DROP FUNCTION jobs_tally();
DROP INDEX jobs_org_status_created;
DROP INDEX jobs_location_status_created;
DROP INDEX jobs_open_promise;
CREATE INDEX jobs_location_status ON jobs (location_id, status);
DROP TABLE late_tally;
DROP TABLE board_tally;
