-- +goose Up
-- jobs_location_external_key served the search by external key of
-- migration 00013, which the trigram indexes replaced (00026); a lookup by
-- external key names its namespace and uses jobs_external_key_key. Every
-- job created paid for it (issue 29).
DROP INDEX jobs_location_external_key;

-- +goose Down
CREATE INDEX jobs_location_external_key ON jobs (location_id, external_key);
