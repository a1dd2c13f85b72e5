-- +goose Up
-- Each job is indexed once (issue 29): job_search_open holds the open
-- jobs, job_search now only the closed ones (delivered, cancelled), no
-- longer every job. SearchJobs reads the open jobs, then the closed ones,
-- so it needs no more; and creating a job, the hottest write, fills one
-- trigram index instead of two. A job moves from one to the other when
-- it closes; a status change between open states (a step started) no
-- longer touches either.
-- Both merge their segments 8 at a time instead of FTS5's 4: each group
-- commit of creates writes a small segment, and merging them half as
-- often was a tenth of the writer's time; a search reads a few more
-- segments, well within its budget (docs/benchmarks.md, "Job search").
DELETE FROM job_search WHERE rowid IN (SELECT rowid FROM job_search_open);
INSERT INTO job_search (job_search, rank) VALUES ('automerge', 8);
INSERT INTO job_search_open (job_search_open, rank) VALUES ('automerge', 8);
DROP TRIGGER jobs_insert_search;
DROP TRIGGER jobs_update_search;
DROP TRIGGER jobs_update_search_open;
-- The values a job is indexed by, written once for both triggers: each
-- starts with two \x02 marks (see 00026), the plate as searched.
CREATE VIEW job_search_values AS
    SELECT rowid AS job_rowid, status IN ('delivered', 'cancelled') AS closed, char(2, 2) || job_number AS number,
        char(2, 2) || upper(replace(replace(coalesce(vehicle_plate, ''), ' ', ''), '-', '')) AS plate,
        char(2, 2) || coalesce(vehicle_make, '') AS make, char(2, 2) || coalesce(vehicle_model, '') AS model,
        char(2, 2) || coalesce(external_key, '') AS ext
    FROM jobs;
-- +goose StatementBegin
CREATE TRIGGER jobs_insert_search AFTER INSERT ON jobs
BEGIN
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext)
        SELECT job_rowid, number, plate, make, model, ext FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext)
        SELECT job_rowid, number, plate, make, model, ext FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd
-- A job is indexed again when a searched value changes or it closes (or,
-- should it ever, opens again).
-- +goose StatementBegin
CREATE TRIGGER jobs_update_search AFTER UPDATE OF job_number, vehicle_plate, vehicle_make, vehicle_model, external_key, status ON jobs
WHEN OLD.job_number IS NOT NEW.job_number OR OLD.vehicle_plate IS NOT NEW.vehicle_plate
    OR OLD.vehicle_make IS NOT NEW.vehicle_make OR OLD.vehicle_model IS NOT NEW.vehicle_model
    OR OLD.external_key IS NOT NEW.external_key
    OR (OLD.status IN ('delivered', 'cancelled')) IS NOT (NEW.status IN ('delivered', 'cancelled'))
BEGIN
    DELETE FROM job_search_open WHERE rowid = OLD.rowid;
    DELETE FROM job_search WHERE rowid = OLD.rowid;
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext)
        SELECT job_rowid, number, plate, make, model, ext FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext)
        SELECT job_rowid, number, plate, make, model, ext FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd

-- +goose Down
-- 00026's triggers as they were.
DROP TRIGGER jobs_update_search;
DROP TRIGGER jobs_insert_search;
DROP VIEW job_search_values;
INSERT INTO job_search (job_search, rank) VALUES ('automerge', 4);
INSERT INTO job_search_open (job_search_open, rank) VALUES ('automerge', 4);
INSERT INTO job_search (rowid, number, plate, make, model, ext) SELECT rowid, number, plate, make, model, ext FROM job_search_open;
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
