-- +goose Up
-- Every attempt of a delivery: when, how long, what the endpoint answered.
CREATE TABLE delivery_attempts (
    delivery_id       TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
    attempt           BIGINT NOT NULL,
    attempted_at      BIGINT NOT NULL,
    duration_ms       BIGINT NOT NULL,
    status_code       BIGINT,
    error             TEXT,
    response_excerpt  TEXT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);

-- failing_since: the first failed attempt since the last success; an
-- endpoint failing for 3 days is disabled (is_active false) with a reason.
ALTER TABLE webhooks ADD COLUMN failing_since BIGINT;
ALTER TABLE webhooks ADD COLUMN disabled_at BIGINT;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;

-- The recent events of an organisation, newest first (GET /v1/platform/events).
CREATE INDEX events_org_occurred ON events (org_id, occurred_at, id);

-- +goose Down
DROP INDEX events_org_occurred;
ALTER TABLE webhooks DROP COLUMN disabled_reason;
ALTER TABLE webhooks DROP COLUMN disabled_at;
ALTER TABLE webhooks DROP COLUMN failing_since;
DROP TABLE delivery_attempts;
