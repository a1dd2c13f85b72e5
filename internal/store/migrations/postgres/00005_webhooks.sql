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
    is_active       BOOLEAN NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
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
    event_seq         BIGINT NOT NULL,
    event_id          TEXT NOT NULL,
    event             TEXT NOT NULL,
    status            TEXT NOT NULL,
    attempts          BIGINT NOT NULL DEFAULT 0,
    round_attempts    BIGINT NOT NULL DEFAULT 0,
    next_attempt_at   BIGINT,
    lease_until       BIGINT,
    leased_by         TEXT,
    last_status_code  BIGINT,
    last_error        TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    CONSTRAINT deliveries_event_key UNIQUE (webhook_id, event_seq)
);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at, id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');

-- The outbox's seq is taken at insert, not at commit: with several writers
-- a smaller seq can commit after a larger one. Each event therefore records
-- the id of the transaction that wrote it, and the fan-out takes events in
-- (tx_id, seq) order only from transactions older than every transaction
-- still running (pg_snapshot_xmin): those are all final, so a cursor on
-- (tx_id, seq) skips none and takes none twice.
ALTER TABLE events ADD COLUMN tx_id BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX events_tx_seq ON events (tx_id, seq);

CREATE TABLE webhook_cursor (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    last_tx   BIGINT NOT NULL,
    last_seq  BIGINT NOT NULL
);
-- Events older than the registrations concern none of them.
INSERT INTO webhook_cursor (id, last_tx, last_seq)
    SELECT 1, COALESCE(MAX(tx_id), 0), COALESCE(MAX(seq), 0) FROM events;

-- +goose Down
DROP TABLE webhook_cursor;
DROP INDEX events_tx_seq;
ALTER TABLE events DROP COLUMN tx_id;
DROP TABLE deliveries;
DROP TABLE webhooks;
