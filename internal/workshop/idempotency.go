package workshop

// IdempotencyRecord is a stored Idempotency-Key.
type IdempotencyRecord struct {
	Fingerprint string
	StatusCode  int    // 0 while the first request is still running
	Body        []byte // the first response's body
}
