-- +goose Up
-- Webhook registrations, their deliveries and the fan-out cursor.
-- signing_secret is kept as issued: deliveries are signed with it.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id),
    location_id     TEXT REFERENCES locations(id),
    url             TEXT NOT NULL,
    events          TEXT NOT NULL,
    signing_secret  TEXT NOT NULL,
    is_active       INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at, id);

-- One delivery per (registration, event). attempts counts every attempt;
-- round_attempts those of the current schedule (a redelivery starts a new
-- one). A delivery of an inactive registration that still has attempts to
-- make is paused: status pending or failed with next_attempt_at NULL.
-- lease_until/leased_by: the dispatcher making the current attempt.
CREATE TABLE deliveries (
    id                TEXT PRIMARY KEY,
    webhook_id        TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_seq         INTEGER NOT NULL,
    event_id          TEXT NOT NULL,
    event             TEXT NOT NULL,
    status            TEXT NOT NULL,
    attempts          INTEGER NOT NULL DEFAULT 0,
    round_attempts    INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   INTEGER,
    lease_until       INTEGER,
    leased_by         TEXT,
    last_status_code  INTEGER,
    last_error        TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    CONSTRAINT deliveries_event_key UNIQUE (webhook_id, event_seq)
);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at, id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');

-- How far the outbox has been fanned out to deliveries: every event up to
-- last_seq (SQLite commits in seq order: one writer).
CREATE TABLE webhook_cursor (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    last_tx   INTEGER NOT NULL,
    last_seq  INTEGER NOT NULL
);
-- Events older than the registrations concern none of them.
INSERT INTO webhook_cursor (id, last_tx, last_seq) SELECT 1, 0, COALESCE(MAX(seq), 0) FROM events;

-- +goose Down
DROP TABLE webhook_cursor;
DROP TABLE deliveries;
DROP TABLE webhooks;
