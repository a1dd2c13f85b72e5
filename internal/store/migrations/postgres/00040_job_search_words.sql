-- +goose Up
-- A term of one or two characters finds a job by the start of any word of
-- its number, plate, make or model (issue 43: "dm" finds "B-DM 1001"), as
-- well as by the start of a whole value (00026). job_search_words is the
-- one rule of what a word is, the same as SQLite's job_search_values.words:
-- the values joined, each space, dash, dot, slash or comma a \x02 mark, the
-- whole after a mark, so that every word follows a mark and the pattern
-- '%' || chr(2) || term || '%' is "a word starts with term". A value
-- searched by its words later (a customer's name) is one more argument here
-- and in the indexes, and in SQLite's view. pg_trgm splits words at the
-- marks and finds a word's start (trigram "  d", " dm") in the index.
-- +goose StatementBegin
CREATE FUNCTION job_search_words(VARIADIC parts text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT chr(2) || translate(array_to_string(parts, ' '), ' -./,', repeat(chr(2), 5)) $$;
-- +goose StatementEnd
CREATE INDEX jobs_search_words_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model) gin_trgm_ops);
CREATE INDEX jobs_search_words_open_trgm ON jobs USING gin (
    job_search_words(job_number, vehicle_plate, vehicle_make, vehicle_model) gin_trgm_ops)
    WHERE status NOT IN ('delivered', 'cancelled');

-- +goose Down
DROP INDEX jobs_search_words_open_trgm;
DROP INDEX jobs_search_words_trgm;
DROP FUNCTION job_search_words(VARIADIC text[]);
