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
    n   INTEGER NOT NULL
);
INSERT INTO auth_epoch (id, n) VALUES (1, 0);

-- +goose StatementBegin
CREATE TRIGGER credentials_update_auth_epoch AFTER UPDATE ON credentials
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER credentials_delete_auth_epoch AFTER DELETE ON credentials
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_update_auth_epoch AFTER UPDATE ON users
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER users_delete_auth_epoch AFTER DELETE ON users
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER orgs_update_auth_epoch AFTER UPDATE ON orgs
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER orgs_delete_auth_epoch AFTER DELETE ON orgs
BEGIN UPDATE auth_epoch SET n = n + 1; END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER orgs_delete_auth_epoch;
DROP TRIGGER orgs_update_auth_epoch;
DROP TRIGGER users_delete_auth_epoch;
DROP TRIGGER users_update_auth_epoch;
DROP TRIGGER credentials_delete_auth_epoch;
DROP TRIGGER credentials_update_auth_epoch;
DROP TABLE auth_epoch;
