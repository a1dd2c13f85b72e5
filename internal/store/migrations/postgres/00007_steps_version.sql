-- +goose Up
-- A job's steps version, incremented by every write to its steps in the
-- write's transaction: a process that cached a job's steps serves them
-- while the version it reads with the job is the one they were read at
-- (stepcache.go). A table of its own, so that the jobs row, which events
-- carry with every column, stays as the API knows it. No row: version 0.
CREATE TABLE job_steps_versions (
    job_id   TEXT PRIMARY KEY REFERENCES jobs(id),
    version  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE job_steps_versions;
