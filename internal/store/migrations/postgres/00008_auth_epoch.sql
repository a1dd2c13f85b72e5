-- +goose Up
-- The auth epoch moves with every change to what authenticating a request
-- reads: a credential's row (its revocation), its user's (the role), its
-- organisation's (the plan), or their deletion. A process remembers the
-- grants it read with the epoch they were read at and serves them while a
-- fresh read of the epoch finds it unchanged (credentials.go). Triggers
-- bump it, so that no write, by this service, by `workshop admin` in
-- another process or by hand, can change a grant and leave it unmoved.
CREATE TABLE auth_epoch (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    n   BIGINT NOT NULL
);
INSERT INTO auth_epoch (id, n) VALUES (1, 0);

-- +goose StatementBegin
CREATE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET n = n + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER credentials_auth_epoch AFTER UPDATE OR DELETE OR TRUNCATE ON credentials
    FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_epoch();
CREATE TRIGGER users_auth_epoch AFTER UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_epoch();
CREATE TRIGGER orgs_auth_epoch AFTER UPDATE OR DELETE OR TRUNCATE ON orgs
    FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_epoch();

-- +goose Down
DROP TRIGGER orgs_auth_epoch ON orgs;
DROP TRIGGER users_auth_epoch ON users;
DROP TRIGGER credentials_auth_epoch ON credentials;
DROP FUNCTION bump_auth_epoch();
DROP TABLE auth_epoch;
