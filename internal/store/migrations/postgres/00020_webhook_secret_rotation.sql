-- +goose Up
-- A rotated signing secret keeps signing beside the new one until
-- previous_secret_until, so that receivers can switch without losing a
-- delivery (Standard Webhooks allows several signatures).
ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_until BIGINT;

-- +goose Down
ALTER TABLE webhooks DROP COLUMN previous_secret_until;
ALTER TABLE webhooks DROP COLUMN previous_secret;
