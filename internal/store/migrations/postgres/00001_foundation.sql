-- +goose Up
-- Audit timestamps are microseconds since the epoch (UTC) on both databases;
-- lists of strings are JSON text. See internal/store/doc.go.
CREATE TABLE orgs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan_tier   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

CREATE TABLE locations (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id),
    name           TEXT NOT NULL,
    timezone       TEXT NOT NULL,
    currency_code  TEXT NOT NULL,
    day_state      TEXT NOT NULL DEFAULT 'open',
    closed_date    TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX locations_org ON locations (org_id, created_at, id);

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id),
    email             TEXT NOT NULL,
    role              TEXT NOT NULL,
    developer_access  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    UNIQUE (org_id, email)
);

CREATE TABLE integrations (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id),
    name         TEXT NOT NULL,
    system_type  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX integrations_org ON integrations (org_id, created_at, id);

CREATE TABLE credentials (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    org_id          TEXT NOT NULL REFERENCES orgs(id),
    user_id         TEXT NOT NULL REFERENCES users(id),
    location_id     TEXT REFERENCES locations(id),
    integration_id  TEXT REFERENCES integrations(id),
    secret_hash     TEXT NOT NULL UNIQUE,
    scopes          TEXT NOT NULL,
    expires_at      BIGINT,
    revoked_at      BIGINT,
    created_at      BIGINT NOT NULL
);

CREATE TABLE technicians (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id),
    location_id  TEXT NOT NULL REFERENCES locations(id),
    name         TEXT NOT NULL,
    skills       TEXT NOT NULL,
    wip_limit    BIGINT NOT NULL,
    status       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);
CREATE INDEX technicians_location ON technicians (location_id, created_at, id);

CREATE TABLE bays (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id),
    location_id  TEXT NOT NULL REFERENCES locations(id),
    name         TEXT NOT NULL,
    equipment    TEXT NOT NULL,
    services     TEXT NOT NULL,
    status       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);
CREATE INDEX bays_location ON bays (location_id, created_at, id);

CREATE TABLE cancel_tags (
    location_id  TEXT NOT NULL REFERENCES locations(id),
    tag          TEXT NOT NULL,
    label        TEXT NOT NULL,
    position     BIGINT NOT NULL,
    PRIMARY KEY (location_id, tag)
);

CREATE TABLE workshop_settings (
    location_id         TEXT PRIMARY KEY REFERENCES locations(id),
    operating_hours     TEXT NOT NULL,
    breaks              TEXT NOT NULL,
    bay_buffer_minutes  BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);

CREATE TABLE idempotency_keys (
    org_id         TEXT NOT NULL,
    idem_key       TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    status_code    BIGINT,
    response_body  TEXT,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (org_id, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE workshop_settings;
DROP TABLE cancel_tags;
DROP TABLE bays;
DROP TABLE technicians;
DROP TABLE credentials;
DROP TABLE integrations;
DROP TABLE users;
DROP TABLE locations;
DROP TABLE orgs;
