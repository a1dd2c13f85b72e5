-- +goose Up
-- Keys and MCP tokens get a name their owner gives them in the
-- application's developer settings ('' for those made before, or by
-- `workshop admin key create`).
ALTER TABLE credentials ADD COLUMN name TEXT NOT NULL DEFAULT '';

-- When a credential last authenticated a request, to the minute. A table
-- of its own: an UPDATE of credentials moves the auth epoch (migration
-- 00008), which would make every process read every grant again.
CREATE TABLE credential_uses (
    credential_id  TEXT PRIMARY KEY REFERENCES credentials(id) ON DELETE CASCADE,
    last_used_at   INTEGER NOT NULL
);

-- +goose Down
DROP TABLE credential_uses;
ALTER TABLE credentials DROP COLUMN name;
