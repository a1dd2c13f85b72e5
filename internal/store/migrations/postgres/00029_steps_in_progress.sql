-- +goose Up
-- The steps in progress of a location, by start: the day close's checklist
-- and the board's note of work left open from a day not closed read them.
-- Only steps in progress are in it, so it stays small whatever the history.
CREATE INDEX steps_in_progress ON steps (location_id, started_at) WHERE status = 'in_progress';

-- +goose Down
DROP INDEX steps_in_progress;
