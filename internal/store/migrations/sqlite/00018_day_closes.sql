-- +goose Up
-- A location's day closes (contract section 7): who started and finished
-- each, the local date it closed, and at the finish the day's summary
-- (JSON: jobs delivered, steps completed, minutes clocked and estimated,
-- items carried over). locations.day_state stays the flag every job and
-- step write reads; the row of the close in progress is the one without
-- finished_at, at most one per location.
CREATE TABLE day_closes (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    location_id   TEXT NOT NULL REFERENCES locations(id),
    business_date TEXT NOT NULL,
    started_at    INTEGER NOT NULL,
    started_by    TEXT,
    finished_at   INTEGER,
    finished_by   TEXT,
    summary       TEXT
);
CREATE UNIQUE INDEX day_closes_open ON day_closes (location_id) WHERE finished_at IS NULL;
CREATE INDEX day_closes_location ON day_closes (location_id, started_at);

-- What the closer chose to leave open for the next day: a step still in
-- progress, a technician still clocked in, a promise not kept, a booking
-- that did not arrive. An item resolved instead (completed, clocked out,
-- moved, cancelled) leaves the checklist by itself and needs no row.
CREATE TABLE day_close_carryovers (
    close_id   TEXT NOT NULL REFERENCES day_closes(id),
    item_kind  TEXT NOT NULL,
    item_id    TEXT NOT NULL,
    decided_at INTEGER NOT NULL,
    decided_by TEXT,
    PRIMARY KEY (close_id, item_kind, item_id)
);

-- +goose Down
DROP TABLE day_close_carryovers;
DROP TABLE day_closes;
