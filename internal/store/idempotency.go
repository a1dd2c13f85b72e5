package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// IdempotencyRetention is how long a key's first response is kept.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyRecord reads the stored response of an Idempotency-Key;
// found is false when there is none within retention.
func (s *Store) IdempotencyRecord(ctx context.Context, orgID, key string) (rec workshop.IdempotencyRecord, found bool, err error) {
	var status sql.NullInt64
	var body sql.NullString
	err = s.read().queryRow(ctx, `SELECT fingerprint, status_code, response_body FROM idempotency_keys
		WHERE org_id = ? AND idem_key = ? AND created_at >= ?`, orgID, key, claimCutoff(s.now())).
		Scan(&rec.Fingerprint, &status, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, false, nil
	}
	rec.StatusCode, rec.Body = int(status.Int64), []byte(body.String)
	return rec, err == nil, err
}

// IdempotencyKey is an Idempotency-Key a write runs under: the write
// stores the key with its response in its own transaction, so the change
// and the record that protects it from being made twice commit together
// or not at all.
type IdempotencyKey struct {
	OrgID, Key, Fingerprint string
	// Response renders the operation's result (what it returns) as the
	// status and body to replay. The caller's presentation, not the store's.
	Response func(result any) (status int, body []byte, err error)
}

// WriteOption is an option of a write operation.
type WriteOption func(*writeOptions)

type writeOptions struct {
	key       *IdempotencyKey
	expected  *workshop.Micros
	precision time.Duration
}

// UnderKey runs a write under an Idempotency-Key (nil: none). A write that
// succeeds has stored the key and its response; a key another request
// stored meanwhile (not yet past retention) fails the write, undone, with
// idempotency_in_progress, and its stored response is the answer.
func UnderKey(k *IdempotencyKey) WriteOption { return func(o *writeOptions) { o.key = k } }

// IfUnchanged makes a write that takes no version of its own (deliver,
// cancel) stale_updated_at unless the record's updatedAt is still
// updatedAt: the application's forms carry the version they were made
// from, and the check holds in the write's transaction.
func IfUnchanged(updatedAt workshop.Micros) WriteOption {
	return func(o *writeOptions) { o.expected = &updatedAt }
}

// GivenTo tells a write that its times were given to unit (a form's time
// field, to the minute): see workshop.StepPatch.Precision.
func GivenTo(unit time.Duration) WriteOption { return func(o *writeOptions) { o.precision = unit } }

// optionsOf reads a write's options.
func optionsOf(opts []WriteOption) writeOptions {
	var o writeOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// keyOf is the Idempotency-Key of a write's options, or nil.
func keyOf(opts []WriteOption) *IdempotencyKey { return optionsOf(opts).key }

// errKeyTaken is the failure of a write whose Idempotency-Key another
// request stored first.
func errKeyTaken() error {
	return workshop.Errorf(workshop.CodeIdempotencyInProgress, "A request with this Idempotency-Key is running or has run; retry to get its response.")
}

// storeKey stores an Idempotency-Key with the response of the operation
// it protects, at the end of that operation's transaction. On PostgreSQL
// a concurrent holder's uncommitted key makes the insert wait for it.
func storeKey(ctx context.Context, c conn, key *IdempotencyKey, result any) error {
	now := c.s.now()
	args, err := keyArgs(nil, key, result, now)
	if err != nil {
		return err
	}
	res, err := c.exec(ctx, claimInsert+valueRows(1, claimWidth)+claimOnConflict, append(args, claimCutoff(now))...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errKeyTaken()
	}
	return nil
}

// claimInsert and claimOnConflict store keys, rows of claimWidth values
// each (claimArgs's), then claimCutoff: a key already stored is replaced
// only when it is past retention. A key that is not is left, and not
// counted in the rows affected.
const (
	claimInsert     = `INSERT INTO idempotency_keys (org_id, idem_key, fingerprint, status_code, response_body, created_at) VALUES `
	claimWidth      = 6
	claimOnConflict = ` ON CONFLICT (org_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint,
		status_code = excluded.status_code, response_body = excluded.response_body, created_at = excluded.created_at
		WHERE idempotency_keys.created_at < ?`
)

// keyArgs renders the response of result for key and appends the values
// of its row to args.
func keyArgs(args []any, key *IdempotencyKey, result any, now time.Time) ([]any, error) {
	status, body, err := key.Response(result)
	if err != nil {
		return args, err
	}
	return append(args, key.OrgID, key.Key, key.Fingerprint, status, string(body), workshop.MicrosOf(now)), nil
}

func claimCutoff(now time.Time) workshop.Micros {
	return workshop.MicrosOf(now.Add(-IdempotencyRetention))
}

// SaveIdempotentResponse keeps the successful response of a request whose
// operation did not store its key itself (key.Response is not used); a
// key stored meanwhile by another request wins, one past retention is
// replaced.
func (s *Store) SaveIdempotentResponse(ctx context.Context, key IdempotencyKey, status int, body []byte) error {
	key.Response = func(any) (int, []byte, error) { return status, body, nil }
	_, err := write(context.WithoutCancel(ctx), s, func(c conn) (struct{}, error) {
		err := storeKey(ctx, c, &key, nil)
		if workshop.ErrorCode(err) == workshop.CodeIdempotencyInProgress {
			return struct{}{}, nil // the other request's response stands
		}
		return struct{}{}, err
	})
	return err
}

// PurgeIdempotencyKeys deletes keys past retention; it returns how many.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	return write(ctx, s, func(c conn) (int64, error) {
		res, err := c.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, claimCutoff(s.now()))
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	})
}
