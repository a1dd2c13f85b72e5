-- +goose Up
-- The service catalog of each location, keyed by a stable service code.
CREATE TABLE catalog_items (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL,
    location_id         TEXT NOT NULL REFERENCES locations(id),
    service_code        TEXT NOT NULL,
    name                TEXT NOT NULL,
    estimated_duration  BIGINT NOT NULL,
    required_skills     TEXT NOT NULL,
    is_active           BOOLEAN NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    CONSTRAINT catalog_items_code_key UNIQUE (location_id, service_code)
);
CREATE INDEX catalog_items_location ON catalog_items (location_id, created_at, id);
CREATE INDEX catalog_items_org ON catalog_items (org_id, created_at, id);

-- Every status a job has had, for the hold history of its detail.
CREATE TABLE job_status_history (
    job_id      TEXT NOT NULL REFERENCES jobs(id),
    status      TEXT NOT NULL,
    changed_at  BIGINT NOT NULL
);
CREATE INDEX job_status_history_job ON job_status_history (job_id, changed_at);

-- +goose Down
DROP TABLE job_status_history;
DROP TABLE catalog_items;
