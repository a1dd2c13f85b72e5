-- +goose Up
-- Finding a job in the application (contract section 7): by plate, in any
-- case and with or without spaces, and by external key whatever the
-- integration. The queries use these very expressions (store.SearchJobs).
CREATE INDEX jobs_location_plate ON jobs (location_id, (upper(replace(vehicle_plate, ' ', ''))));
CREATE INDEX jobs_location_external_key ON jobs (location_id, external_key);

-- +goose Down
DROP INDEX jobs_location_external_key;
DROP INDEX jobs_location_plate;
