-- +goose Up
-- Scheduling a step at a time (contract section 8): the earliest the plan
-- may start a pending step, as the caller sent it (RFC 3339 with its
-- offset, like promise_time); NULL leaves its time to the planner.
ALTER TABLE steps ADD COLUMN not_before TEXT;

-- +goose Down
ALTER TABLE steps DROP COLUMN not_before;
