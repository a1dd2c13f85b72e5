-- +goose Up
-- A job's steps are read in (phase, created_at, id) order: with id in the
-- index the read walks it in order instead of sorting every time.
DROP INDEX steps_job;
CREATE INDEX steps_job ON steps (job_id, phase, created_at, id);

-- +goose Down
DROP INDEX steps_job;
CREATE INDEX steps_job ON steps (job_id, phase, created_at);
