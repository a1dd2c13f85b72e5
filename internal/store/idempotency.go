package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// IdempotencyRetention is how long a key's first response is kept.
const IdempotencyRetention = 24 * time.Hour

// ClaimIdempotencyKey claims (orgID, key) for a request with the given
// fingerprint, for lease. When it returns claimed false, the record tells
// why: a stored response to replay (or refuse, when the fingerprint
// differs), or a first request still running. A claim whose lease ran out
// without a stored response is taken over: its request died before its
// transaction committed, because a commit stores the response too.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, orgID, key, fingerprint string, lease time.Duration) (rec workshop.IdempotencyRecord, claimed bool, err error) {
	type result struct {
		rec     workshop.IdempotencyRecord
		claimed bool
	}
	r, err := write(ctx, s, func(c conn) (result, error) {
		now := s.now()
		until := workshop.MicrosOf(now.Add(lease))
		expired := workshop.MicrosOf(now.Add(-IdempotencyRetention))
		if _, err := c.exec(ctx, `DELETE FROM idempotency_keys WHERE org_id = ? AND idem_key = ? AND created_at < ?`, orgID, key, expired); err != nil {
			return result{}, err
		}
		res, err := c.exec(ctx, `INSERT INTO idempotency_keys (org_id, idem_key, fingerprint, locked_until, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (org_id, idem_key) DO NOTHING`, orgID, key, fingerprint, until, workshop.MicrosOf(now))
		if err != nil {
			return result{}, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return result{claimed: true}, nil
		}
		var rec workshop.IdempotencyRecord
		var status sql.NullInt64
		var body sql.NullString
		lockClause := ""
		if s.dialect == postgresDialect {
			lockClause = " FOR UPDATE"
		}
		if err := c.queryRow(ctx, `SELECT fingerprint, status_code, response_body, locked_until FROM idempotency_keys
			WHERE org_id = ? AND idem_key = ?`+lockClause, orgID, key).Scan(&rec.Fingerprint, &status, &body, &rec.LockedUntil); err != nil {
			return result{}, err
		}
		rec.StatusCode, rec.Body = int(status.Int64), []byte(body.String)
		if status.Valid || rec.Fingerprint != fingerprint || rec.LockedUntil > workshop.MicrosOf(now) {
			return result{rec: rec}, nil
		}
		_, err = c.exec(ctx, `UPDATE idempotency_keys SET locked_until = ? WHERE org_id = ? AND idem_key = ?`, until, orgID, key)
		return result{claimed: true}, err
	})
	return r.rec, r.claimed, err
}

// completeClaim stores the response of a claimed key inside the
// transaction of the operation it protects.
func completeClaim(ctx context.Context, c conn, claim *workshop.IdempotencyClaim, result any) error {
	status, body, err := claim.Render(result)
	if err != nil {
		return err
	}
	return storeResponse(ctx, c, claim.OrgID, claim.Key, status, body)
}

func storeResponse(ctx context.Context, c conn, orgID, key string, status int, body []byte) error {
	_, err := c.exec(ctx, `UPDATE idempotency_keys SET status_code = ?, response_body = ? WHERE org_id = ? AND idem_key = ?`,
		status, string(body), orgID, key)
	return err
}

// CompleteIdempotencyKey stores the response of a claimed key whose request
// wrote nothing (a refusal, or an answer read from what exists).
func (s *Store) CompleteIdempotencyKey(ctx context.Context, orgID, key string, status int, body []byte) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		return struct{}{}, storeResponse(ctx, c, orgID, key, status, body)
	})
	return err
}

// ReleaseIdempotencyKey drops an uncompleted claim (its request failed with
// a server error), so that a retry runs afresh.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, orgID, key string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		_, err := c.exec(ctx, `DELETE FROM idempotency_keys WHERE org_id = ? AND idem_key = ? AND status_code IS NULL`, orgID, key)
		return struct{}{}, err
	})
	return err
}

// PurgeIdempotencyKeys deletes keys past retention; it returns how many.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	return write(ctx, s, func(c conn) (int64, error) {
		res, err := c.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, workshop.MicrosOf(s.now().Add(-IdempotencyRetention)))
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	})
}
