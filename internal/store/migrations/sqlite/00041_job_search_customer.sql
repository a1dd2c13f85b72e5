-- +goose Up
-- The customer's name and phone are searched as the other values (issue
-- 41: the job search covers number, plate, make, model, external key,
-- customer name and phone under one rule). Both trigram tables gain two
-- columns (FTS5 tables take no new column, so they are made again): name,
-- searched as make and model are (any part of three or more characters,
-- the start of the value for a shorter term), and phone, the digits alone
-- (a phone is digits and the separators of workshop.PhoneSeparators, all
-- removed here as store.phoneKey removes them from a term), searched by a
-- part of three or more digits. The name is one more part of "worded": a
-- term of one or two characters finds the start of any word of it. The
-- update trigger watches the two columns, so that an edit or the customer
-- data sweep's erasing is searched at once.
DROP TRIGGER jobs_update_search;
DROP TRIGGER jobs_insert_search;
DROP VIEW job_search_values;
DROP TABLE job_search_open;
DROP TABLE job_search;
CREATE VIRTUAL TABLE job_search USING fts5(number, plate, make, model, ext, name, phone, words, tokenize = 'trigram');
CREATE VIRTUAL TABLE job_search_open USING fts5(number, plate, make, model, ext, name, phone, words, tokenize = 'trigram');
INSERT INTO job_search (job_search, rank) VALUES ('automerge', 8);
INSERT INTO job_search_open (job_search_open, rank) VALUES ('automerge', 8);
CREATE VIEW job_search_values AS
    SELECT job_rowid, closed, number, plate, make, model, ext, name, phone,
        char(2, 2) || replace(replace(replace(replace(replace(worded,
            ' ', char(2, 2)), '-', char(2, 2)), '.', char(2, 2)), '/', char(2, 2)), ',', char(2, 2)) AS words
    FROM (SELECT rowid AS job_rowid, status IN ('delivered', 'cancelled') AS closed, char(2, 2) || job_number AS number,
        char(2, 2) || upper(replace(replace(coalesce(vehicle_plate, ''), ' ', ''), '-', '')) AS plate,
        char(2, 2) || coalesce(vehicle_make, '') AS make, char(2, 2) || coalesce(vehicle_model, '') AS model,
        char(2, 2) || coalesce(external_key, '') AS ext, char(2, 2) || coalesce(customer_name, '') AS name,
        char(2, 2) || replace(replace(replace(replace(replace(replace(replace(coalesce(customer_phone, ''),
            ' ', ''), '+', ''), '(', ''), ')', ''), '-', ''), '.', ''), '/', '') AS phone,
        job_number || ' ' || coalesce(vehicle_plate, '') || ' ' || coalesce(vehicle_make, '') || ' ' || coalesce(vehicle_model, '')
            || coalesce(' ' || customer_name, '') AS worded
    FROM jobs);
INSERT INTO job_search_open (rowid, number, plate, make, model, ext, name, phone, words)
    SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE NOT closed;
INSERT INTO job_search (rowid, number, plate, make, model, ext, name, phone, words)
    SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE closed;
-- +goose StatementBegin
CREATE TRIGGER jobs_insert_search AFTER INSERT ON jobs
BEGIN
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext, name, phone, words)
        SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext, name, phone, words)
        SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_update_search AFTER UPDATE OF job_number, vehicle_plate, vehicle_make, vehicle_model, external_key,
    customer_name, customer_phone, status ON jobs
WHEN OLD.job_number IS NOT NEW.job_number OR OLD.vehicle_plate IS NOT NEW.vehicle_plate
    OR OLD.vehicle_make IS NOT NEW.vehicle_make OR OLD.vehicle_model IS NOT NEW.vehicle_model
    OR OLD.external_key IS NOT NEW.external_key
    OR OLD.customer_name IS NOT NEW.customer_name OR OLD.customer_phone IS NOT NEW.customer_phone
    OR (OLD.status IN ('delivered', 'cancelled')) IS NOT (NEW.status IN ('delivered', 'cancelled'))
BEGIN
    DELETE FROM job_search_open WHERE rowid = OLD.rowid;
    DELETE FROM job_search WHERE rowid = OLD.rowid;
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext, name, phone, words)
        SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext, name, phone, words)
        SELECT job_rowid, number, plate, make, model, ext, name, phone, words FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd

-- +goose Down
-- 00040's tables, view and triggers as they were.
DROP TRIGGER jobs_update_search;
DROP TRIGGER jobs_insert_search;
DROP VIEW job_search_values;
DROP TABLE job_search_open;
DROP TABLE job_search;
CREATE VIRTUAL TABLE job_search USING fts5(number, plate, make, model, ext, words, tokenize = 'trigram');
CREATE VIRTUAL TABLE job_search_open USING fts5(number, plate, make, model, ext, words, tokenize = 'trigram');
INSERT INTO job_search (job_search, rank) VALUES ('automerge', 8);
INSERT INTO job_search_open (job_search_open, rank) VALUES ('automerge', 8);
CREATE VIEW job_search_values AS
    SELECT job_rowid, closed, number, plate, make, model, ext,
        char(2, 2) || replace(replace(replace(replace(replace(worded,
            ' ', char(2, 2)), '-', char(2, 2)), '.', char(2, 2)), '/', char(2, 2)), ',', char(2, 2)) AS words
    FROM (SELECT rowid AS job_rowid, status IN ('delivered', 'cancelled') AS closed, char(2, 2) || job_number AS number,
        char(2, 2) || upper(replace(replace(coalesce(vehicle_plate, ''), ' ', ''), '-', '')) AS plate,
        char(2, 2) || coalesce(vehicle_make, '') AS make, char(2, 2) || coalesce(vehicle_model, '') AS model,
        char(2, 2) || coalesce(external_key, '') AS ext,
        job_number || ' ' || coalesce(vehicle_plate, '') || ' ' || coalesce(vehicle_make, '') || ' ' || coalesce(vehicle_model, '') AS worded
    FROM jobs);
INSERT INTO job_search_open (rowid, number, plate, make, model, ext, words)
    SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE NOT closed;
INSERT INTO job_search (rowid, number, plate, make, model, ext, words)
    SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE closed;
-- +goose StatementBegin
CREATE TRIGGER jobs_insert_search AFTER INSERT ON jobs
BEGIN
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext, words)
        SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext, words)
        SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER jobs_update_search AFTER UPDATE OF job_number, vehicle_plate, vehicle_make, vehicle_model, external_key, status ON jobs
WHEN OLD.job_number IS NOT NEW.job_number OR OLD.vehicle_plate IS NOT NEW.vehicle_plate
    OR OLD.vehicle_make IS NOT NEW.vehicle_make OR OLD.vehicle_model IS NOT NEW.vehicle_model
    OR OLD.external_key IS NOT NEW.external_key
    OR (OLD.status IN ('delivered', 'cancelled')) IS NOT (NEW.status IN ('delivered', 'cancelled'))
BEGIN
    DELETE FROM job_search_open WHERE rowid = OLD.rowid;
    DELETE FROM job_search WHERE rowid = OLD.rowid;
    INSERT INTO job_search_open (rowid, number, plate, make, model, ext, words)
        SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE job_rowid = NEW.rowid AND NOT closed;
    INSERT INTO job_search (rowid, number, plate, make, model, ext, words)
        SELECT job_rowid, number, plate, make, model, ext, words FROM job_search_values WHERE job_rowid = NEW.rowid AND closed;
END;
-- +goose StatementEnd
