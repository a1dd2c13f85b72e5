-- +goose Up
-- Re-plans move little near now (contract section 8): per location, the
-- anchor, the last plan for today computed to answer a reader, stored so
-- that every process plans from the same one (store/anchor.go). It is kept
-- with the one before it: a plan computed at a plan version and minute
-- starts from the newest anchor computed before that version and minute,
-- so a second process computing the same plan starts from the same anchor
-- even after the first stored its own. No trigger moves the plan version
-- for it: storing an anchor changes no plan already computed.
CREATE TABLE plan_anchors (
    location_id    TEXT PRIMARY KEY REFERENCES locations(id),
    version        BIGINT NOT NULL,
    minute         BIGINT NOT NULL,
    body           TEXT NOT NULL,
    prev_version   BIGINT NOT NULL,
    prev_minute    BIGINT NOT NULL,
    prev_body      TEXT NOT NULL
);

-- +goose Down
DROP TABLE plan_anchors;
