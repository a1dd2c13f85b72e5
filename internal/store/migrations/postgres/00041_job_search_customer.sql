-- +goose Up
-- The customer's name and phone are searched as the other values (issue
-- 41: the job search covers number, plate, make, model, external key,
-- customer name and phone under one rule), as SQLite's migration 00041
-- does. The trigram indexes of the values (00026) are made again with two
-- more columns: the name, searched as make and model are, and the phone's
-- digits alone (a phone is digits and the separators of
-- workshop.PhoneSeparators, all removed here as store.phoneKey removes
-- them from a term), searched by a part of three or more digits. The
-- indexes of the words (00040) are made again with the name as one more
-- argument of job_search_words: a term of one or two characters finds the
-- start of any word of it. An index is kept up to date by every write, so
-- the customer data sweep's erasing is searched at once.
DROP INDEX jobs_search_words_open_trgm;
DROP INDEX jobs_search_words_trgm;
DROP INDEX jobs_search_open_trgm;
DROP INDEX jobs_search_trgm;
CREATE INDEX jobs_search_trgm ON jobs USING gin (
    job_number gin_trgm_ops,
    (replace(replace(vehicle_plate, ' ', ''), '-', '')) gin_trgm_ops,
    vehicle_make gin_trgm_ops,
    vehicle_model gin_trgm_ops,
    external_key gin_trgm_ops,
    customer_name gin_trgm_ops,
    (translate(customer_phone, ' +()-./', '')) gin_trgm_ops);
CREATE INDEX jobs_search_open_trgm ON jobs USING gin (
    job_number gin_trgm_ops,
    (replace(replace(vehicle_plate, ' ', ''), '-', '')) gin_trgm_ops,
    vehicle_make gin_trgm_ops,
    vehicle_model gin_trgm_ops,
    external_key gin_trgm_ops,
    customer_name gin_trgm_ops,
    (translate(customer_phone, ' +()-./', '')) gin_trgm_ops)
    WHERE status NOT IN ('delivered', 'cancelled');
CREATE INDEX jobs_search_words_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model, customer_name) gin_trgm_ops);
CREATE INDEX jobs_search_words_open_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model, customer_name) gin_trgm_ops)
    WHERE status NOT IN ('delivered', 'cancelled');

-- +goose Down
-- 00026's and 00040's indexes as they were.
DROP INDEX jobs_search_words_open_trgm;
DROP INDEX jobs_search_words_trgm;
DROP INDEX jobs_search_open_trgm;
DROP INDEX jobs_search_trgm;
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
CREATE INDEX jobs_search_words_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model) gin_trgm_ops);
CREATE INDEX jobs_search_words_open_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model) gin_trgm_ops)
    WHERE status NOT IN ('delivered', 'cancelled');
