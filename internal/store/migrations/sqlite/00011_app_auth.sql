-- +goose Up
-- Sign-in to the workshop application (contract section 7). Passwords are
-- argon2id hashes in PHC form (parameters and salt inside); NULL: the user
-- has no password yet (invite them). Sessions, invite and setup tokens are
-- kept as SHA-256 of their secret, never the secret. Everything is in the
-- database so that every process on one PostgreSQL sees the same state.
ALTER TABLE users ADD COLUMN password_hash TEXT;
CREATE INDEX users_email_lower ON users (lower(email));

-- A session is one sign-in of a browser. choices are the users (one per
-- organisation) whose password the sign-in matched, each with a stamp of
-- the password hash it matched: a password changed since ends the session.
-- user_id is the chosen one; NULL until the user picks an organisation.
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    user_id       TEXT REFERENCES users(id) ON DELETE CASCADE,
    choices       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_seen_at  INTEGER NOT NULL
);
CREATE INDEX sessions_last_seen ON sessions (last_seen_at);

-- One-time links: kind 'invite' (a user chooses a password) or 'setup'
-- (the first organisation is made).
CREATE TABLE auth_tokens (
    token_hash  TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    user_id     TEXT REFERENCES users(id) ON DELETE CASCADE,
    expires_at  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX auth_tokens_user ON auth_tokens (user_id);

-- Failed sign-ins by lower-cased email, and the emails locked out.
CREATE TABLE login_failures (
    email  TEXT NOT NULL,
    at     INTEGER NOT NULL
);
CREATE INDEX login_failures_email ON login_failures (email, at);
CREATE INDEX login_failures_at ON login_failures (at);
CREATE TABLE login_locks (
    email         TEXT PRIMARY KEY,
    locked_until  INTEGER NOT NULL
);

-- +goose Down
DROP TABLE login_locks;
DROP TABLE login_failures;
DROP TABLE auth_tokens;
DROP TABLE sessions;
DROP INDEX users_email_lower;
ALTER TABLE users DROP COLUMN password_hash;
