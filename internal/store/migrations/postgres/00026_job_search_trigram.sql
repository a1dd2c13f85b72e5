-- +goose Up
-- Finding a job by any part of its number, plate, make, model or external
-- key (issue 27, store.SearchJobs) through trigram GIN indexes rather than
-- a scan of every job: each column is searched with ILIKE '%q%' (or 'q%'
-- for a query shorter than three characters), which the index serves
-- column by column. jobs_search_trgm holds every job, jobs_search_open_trgm
-- only the open ones (not delivered or cancelled), so that the open jobs,
-- shown first, are found among the few of them however common the term.
-- The plate is indexed as searched: without spaces or dashes (ILIKE
-- ignores case). pg_trgm is a trusted extension: the database's owner may
-- create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX jobs_search_trgm ON jobs USING gin (
    job_number gin_trgm_ops,
    (replace(replace(vehicle_plate, ' ', ''), '-', '')) gin_trgm_ops,
    vehicle_make gin_trgm_ops,
    vehicle_model gin_trgm_ops,
    external_key gin_trgm_ops);
CREATE INDEX jobs_search_open_trgm ON jobs USING gin (
    job_number gin_trgm_ops,
    (replace(replace(vehicle_plate, ' ', ''), '-', '')) gin_trgm_ops,
    vehicle_make gin_trgm_ops,
    vehicle_model gin_trgm_ops,
    external_key gin_trgm_ops)
    WHERE status NOT IN ('delivered', 'cancelled');

-- Plates are no longer searched whole (migration 00013).
DROP INDEX jobs_location_plate;

-- +goose Down
CREATE INDEX jobs_location_plate ON jobs (location_id, (upper(replace(vehicle_plate, ' ', ''))));
DROP INDEX jobs_search_open_trgm;
DROP INDEX jobs_search_trgm;
