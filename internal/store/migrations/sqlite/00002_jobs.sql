-- +goose Up
CREATE TABLE jobs (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id),
    location_id         TEXT NOT NULL REFERENCES locations(id),
    integration_id      TEXT NOT NULL DEFAULT '',
    external_key        TEXT,
    job_number          TEXT NOT NULL,
    vehicle_plate       TEXT,
    vehicle_make        TEXT,
    vehicle_model       TEXT,
    promise_time        TEXT,
    promise_time_us     INTEGER,
    priority            TEXT NOT NULL,
    source              TEXT NOT NULL,
    arrival_time        TEXT,
    insurance_claim     TEXT,
    status              TEXT NOT NULL,
    delivered_at        INTEGER,
    cancelled_at        INTEGER,
    cancel_reason_tags  TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    CONSTRAINT jobs_job_number_key UNIQUE (location_id, job_number),
    CONSTRAINT jobs_external_key_key UNIQUE (org_id, integration_id, external_key)
);
CREATE INDEX jobs_location_created ON jobs (location_id, created_at, id);
CREATE INDEX jobs_org_created ON jobs (org_id, created_at, id);
CREATE INDEX jobs_location_status ON jobs (location_id, status);

CREATE TABLE job_number_counters (
    location_id  TEXT NOT NULL REFERENCES locations(id),
    year         INTEGER NOT NULL,
    next_seq     INTEGER NOT NULL,
    PRIMARY KEY (location_id, year)
);

CREATE TABLE steps (
    id                  TEXT PRIMARY KEY,
    job_id              TEXT NOT NULL REFERENCES jobs(id),
    org_id              TEXT NOT NULL,
    location_id         TEXT NOT NULL,
    label               TEXT NOT NULL,
    phase               INTEGER NOT NULL,
    scheduling_mode     TEXT NOT NULL,
    estimated_duration  INTEGER NOT NULL,
    tech_ids            TEXT NOT NULL,
    bay_id              TEXT,
    status              TEXT NOT NULL,
    started_at          INTEGER,
    completed_at        INTEGER,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX steps_job ON steps (job_id, phase, created_at);
CREATE INDEX steps_bay ON steps (bay_id, status);

-- Which technicians a step is assigned to, for the work-in-progress limit.
CREATE TABLE step_technicians (
    step_id  TEXT NOT NULL REFERENCES steps(id),
    tech_id  TEXT NOT NULL,
    PRIMARY KEY (step_id, tech_id)
);
CREATE INDEX step_technicians_tech ON step_technicians (tech_id);

-- The outbox: every event, written in the transaction of its change.
CREATE TABLE events (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    org_id       TEXT NOT NULL,
    location_id  TEXT NOT NULL,
    event        TEXT NOT NULL,
    occurred_at  INTEGER NOT NULL,
    data         TEXT NOT NULL
);

-- +goose Down
DROP TABLE events;
DROP TABLE step_technicians;
DROP TABLE steps;
DROP TABLE job_number_counters;
DROP TABLE jobs;
