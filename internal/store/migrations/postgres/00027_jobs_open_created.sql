-- +goose Up
-- The open jobs of a location newest first (store.SearchJobs): a term that
-- many open jobs match ("vo" at a VW dealer) is found by walking the open
-- jobs from the newest and stopping at the limit, where the trigram index
-- would fetch every match from all over the table and sort them. The
-- planner chooses between the two with the term's estimated matches.
-- SQLite reads its open jobs' search table newest first already.
CREATE INDEX jobs_location_open_created ON jobs (location_id, created_at, id)
    WHERE status NOT IN ('delivered', 'cancelled');

-- +goose Down
DROP INDEX jobs_location_open_created;
