-- +goose Up
-- The board (store/board.go) reads a location's job counts from a tally
-- kept current in the writes' own transactions, so that its cost does not
-- grow with the jobs a location keeps open or has finished: per status the
-- jobs, and per UTC day of their promise the open jobs not ready (booked,
-- arrived, in progress, waiting) that have a promise. Late is the second
-- tally's days before today plus today's promises before now, which a
-- partial index below counts. Triggers keep both, so no write by this service, by
-- `workshop admin` or by hand can leave them behind.
CREATE TABLE board_tally (
    location_id  TEXT NOT NULL,
    status       TEXT NOT NULL,
    n            INTEGER NOT NULL,
    PRIMARY KEY (location_id, status)
);
CREATE TABLE late_tally (
    location_id  TEXT NOT NULL,
    day          INTEGER NOT NULL, -- promise_time_us / 86400000000: UTC days since 1970
    n            INTEGER NOT NULL,
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

-- +goose StatementBegin
CREATE TRIGGER jobs_insert_tally AFTER INSERT ON jobs
BEGIN
    INSERT INTO board_tally (location_id, status, n) VALUES (NEW.location_id, NEW.status, 1)
        ON CONFLICT (location_id, status) DO UPDATE SET n = n + 1;
    INSERT INTO late_tally (location_id, day, n)
        SELECT NEW.location_id, NEW.promise_time_us / 86400000000, 1
        WHERE NEW.promise_time_us IS NOT NULL AND NEW.status IN ('booked', 'arrived', 'in_progress', 'waiting')
        ON CONFLICT (location_id, day) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_update_tally AFTER UPDATE OF location_id, status, promise_time_us ON jobs
WHEN OLD.location_id IS NOT NEW.location_id OR OLD.status IS NOT NEW.status OR OLD.promise_time_us IS NOT NEW.promise_time_us
BEGIN
    UPDATE board_tally SET n = n - 1 WHERE location_id = OLD.location_id AND status = OLD.status;
    INSERT INTO board_tally (location_id, status, n) VALUES (NEW.location_id, NEW.status, 1)
        ON CONFLICT (location_id, status) DO UPDATE SET n = n + 1;
    UPDATE late_tally SET n = n - 1 WHERE location_id = OLD.location_id AND day = OLD.promise_time_us / 86400000000
        AND OLD.promise_time_us IS NOT NULL AND OLD.status IN ('booked', 'arrived', 'in_progress', 'waiting');
    INSERT INTO late_tally (location_id, day, n)
        SELECT NEW.location_id, NEW.promise_time_us / 86400000000, 1
        WHERE NEW.promise_time_us IS NOT NULL AND NEW.status IN ('booked', 'arrived', 'in_progress', 'waiting')
        ON CONFLICT (location_id, day) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_delete_tally AFTER DELETE ON jobs
BEGIN
    UPDATE board_tally SET n = n - 1 WHERE location_id = OLD.location_id AND status = OLD.status;
    UPDATE late_tally SET n = n - 1 WHERE location_id = OLD.location_id AND day = OLD.promise_time_us / 86400000000
        AND OLD.promise_time_us IS NOT NULL AND OLD.status IN ('booked', 'arrived', 'in_progress', 'waiting');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER jobs_delete_tally;
DROP TRIGGER jobs_update_tally;
DROP TRIGGER jobs_insert_tally;
DROP INDEX jobs_org_status_created;
DROP INDEX jobs_location_status_created;
DROP INDEX jobs_open_promise;
CREATE INDEX jobs_location_status ON jobs (location_id, status);
DROP TABLE late_tally;
DROP TABLE board_tally;
