package workshop

import "context"

// IdempotencyClaim is an Idempotency-Key a request runs under. The store
// takes the key and stores the response inside the transaction of the
// operation it protects: Render turns the operation's result into the
// response to replay.
type IdempotencyClaim struct {
	OrgID, Key, Fingerprint string
	Render                  func(result any) (status int, body []byte, err error)
	Completed               bool // the response is stored
	Raced                   bool // another request holds or held the key: answer with its response
}

type claimKey struct{}

// WithIdempotencyClaim attaches a claim to ctx.
func WithIdempotencyClaim(ctx context.Context, c *IdempotencyClaim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

// IdempotencyClaimFrom is the claim attached to ctx, or nil.
func IdempotencyClaimFrom(ctx context.Context) *IdempotencyClaim {
	c, _ := ctx.Value(claimKey{}).(*IdempotencyClaim)
	return c
}

// IdempotencyRecord is a stored Idempotency-Key.
type IdempotencyRecord struct {
	Fingerprint string
	StatusCode  int    // 0 while the first request is still running
	Body        []byte // the first response's body
}
