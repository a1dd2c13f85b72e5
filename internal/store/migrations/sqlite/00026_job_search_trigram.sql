-- +goose Up
-- Finding a job by any part of its number, plate, make, model or external
-- key (issue 27, store.SearchJobs) through FTS5 trigram indexes rather than
-- a scan of every job: job_search holds every job, job_search_open only
-- the open ones (not delivered or cancelled), so that the open jobs, shown
-- first, are found among the few of them however common the term.
-- The rowid of each row is its job's rowid (the jobs table is never
-- vacuumed, which could renumber it). Each value starts with two \x02
-- marks, so that a query of one or two characters, marked the same way,
-- is three characters long and matches the start of a value: the prefix
-- search of short queries, through the same index. The plate is kept as
-- searched: upper case, without spaces or dashes. Triggers keep both in
-- step, so no write by this service, by `workshop admin` or by hand can
-- leave them behind.
CREATE VIRTUAL TABLE job_search USING fts5(number, plate, make, model, ext, tokenize = 'trigram');
CREATE VIRTUAL TABLE job_search_open USING fts5(number, plate, make, model, ext, tokenize = 'trigram');
INSERT INTO job_search (rowid, number, plate, make, model, ext)
    SELECT rowid, char(2, 2) || job_number,
        char(2, 2) || upper(replace(replace(coalesce(vehicle_plate, ''), ' ', ''), '-', '')),
        char(2, 2) || coalesce(vehicle_make, ''), char(2, 2) || coalesce(vehicle_model, ''),
        char(2, 2) || coalesce(external_key, '')
    FROM jobs;
INSERT INTO job_search_open (rowid, number, plate, make, model, ext)
    SELECT s.rowid, number, plate, make, model, ext FROM job_search s JOIN jobs j ON j.rowid = s.rowid
    WHERE j.status NOT IN ('delivered', 'cancelled');

-- +goose StatementBegin
CREATE TRIGGER jobs_insert_search AFTER INSERT ON jobs
BEGIN
    INSERT INTO job_search (rowid, number, plate, make, model, ext) VALUES (NEW.rowid, char(2, 2) || NEW.job_number,
        char(2, 2) || upper(replace(replace(coalesce(NEW.vehicle_plate, ''), ' ', ''), '-', '')),
        char(2, 2) || coalesce(NEW.vehicle_make, ''), char(2, 2) || coalesce(NEW.vehicle_model, ''),
        char(2, 2) || coalesce(NEW.external_key, ''));
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext) SELECT NEW.rowid, char(2, 2) || NEW.job_number,
        char(2, 2) || upper(replace(replace(coalesce(NEW.vehicle_plate, ''), ' ', ''), '-', '')),
        char(2, 2) || coalesce(NEW.vehicle_make, ''), char(2, 2) || coalesce(NEW.vehicle_model, ''),
        char(2, 2) || coalesce(NEW.external_key, '')
        WHERE NEW.status NOT IN ('delivered', 'cancelled');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_update_search AFTER UPDATE OF job_number, vehicle_plate, vehicle_make, vehicle_model, external_key ON jobs
WHEN OLD.job_number IS NOT NEW.job_number OR OLD.vehicle_plate IS NOT NEW.vehicle_plate
    OR OLD.vehicle_make IS NOT NEW.vehicle_make OR OLD.vehicle_model IS NOT NEW.vehicle_model
    OR OLD.external_key IS NOT NEW.external_key
BEGIN
    UPDATE job_search SET number = char(2, 2) || NEW.job_number,
        plate = char(2, 2) || upper(replace(replace(coalesce(NEW.vehicle_plate, ''), ' ', ''), '-', '')),
        make = char(2, 2) || coalesce(NEW.vehicle_make, ''), model = char(2, 2) || coalesce(NEW.vehicle_model, ''),
        ext = char(2, 2) || coalesce(NEW.external_key, '')
    WHERE rowid = NEW.rowid;
END;
-- +goose StatementEnd
-- The open jobs' table follows the values and the status.
-- +goose StatementBegin
CREATE TRIGGER jobs_update_search_open AFTER UPDATE OF job_number, vehicle_plate, vehicle_make, vehicle_model, external_key, status ON jobs
WHEN OLD.job_number IS NOT NEW.job_number OR OLD.vehicle_plate IS NOT NEW.vehicle_plate
    OR OLD.vehicle_make IS NOT NEW.vehicle_make OR OLD.vehicle_model IS NOT NEW.vehicle_model
    OR OLD.external_key IS NOT NEW.external_key OR OLD.status IS NOT NEW.status
BEGIN
    DELETE FROM job_search_open WHERE rowid = OLD.rowid;
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext) SELECT NEW.rowid, char(2, 2) || NEW.job_number,
        char(2, 2) || upper(replace(replace(coalesce(NEW.vehicle_plate, ''), ' ', ''), '-', '')),
        char(2, 2) || coalesce(NEW.vehicle_make, ''), char(2, 2) || coalesce(NEW.vehicle_model, ''),
        char(2, 2) || coalesce(NEW.external_key, '')
        WHERE NEW.status NOT IN ('delivered', 'cancelled');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_delete_search AFTER DELETE ON jobs
BEGIN
    DELETE FROM job_search WHERE rowid = OLD.rowid;
    DELETE FROM job_search_open WHERE rowid = OLD.rowid;
END;
-- +goose StatementEnd

-- Plates are no longer searched whole (migration 00013).
DROP INDEX jobs_location_plate;

-- +goose Down
CREATE INDEX jobs_location_plate ON jobs (location_id, (upper(replace(vehicle_plate, ' ', ''))));
DROP TRIGGER jobs_delete_search;
DROP TRIGGER jobs_update_search_open;
DROP TRIGGER jobs_update_search;
DROP TRIGGER jobs_insert_search;
DROP TABLE job_search_open;
DROP TABLE job_search;
