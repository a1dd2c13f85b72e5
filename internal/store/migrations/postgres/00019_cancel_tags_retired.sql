-- +goose Up
-- A cancel reason tag is retired rather than deleted: no new cancel may
-- use it, but the jobs cancelled with it keep its label.
ALTER TABLE cancel_tags ADD COLUMN retired_at BIGINT;

-- +goose Down
ALTER TABLE cancel_tags DROP COLUMN retired_at;
