-- +goose Up
-- Promise confidence (contract section 9): the share of quoted promises a
-- location wants to keep; the availability quote's margin follows it.
ALTER TABLE workshop_settings ADD COLUMN promise_confidence DOUBLE PRECISION NOT NULL DEFAULT 0.9;

-- +goose Down
ALTER TABLE workshop_settings DROP COLUMN promise_confidence;
