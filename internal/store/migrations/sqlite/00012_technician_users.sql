-- +goose Up
-- The application user who works as a technician: signed in, they see the
-- steps assigned to that technician and start and complete them. A user
-- works as at most one technician at a time.
ALTER TABLE technicians ADD COLUMN user_id TEXT;
CREATE UNIQUE INDEX technicians_user ON technicians (user_id) WHERE user_id IS NOT NULL AND deleted_at IS NULL;

-- +goose Down
DROP INDEX technicians_user;
ALTER TABLE technicians DROP COLUMN user_id;
