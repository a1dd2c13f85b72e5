package client

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// retryPolicy is how often and how patiently a request is resent.
type retryPolicy struct {
	attempts    int
	first, most time.Duration
}

var defaultRetry = retryPolicy{attempts: 4, first: 250 * time.Millisecond, most: 8 * time.Second}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// transport is the SDK's HttpRequestDoer: it authenticates, names the
// user agent, gives a POST its Idempotency-Key, retries, and turns an
// answer of 400 or more into an *APIError.
type transport struct {
	next      HttpRequestDoer
	key       string
	userAgent string
	retry     retryPolicy
	sleep     func(ctx context.Context, d time.Duration) error
}

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	if t.key != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	req.Header.Set("User-Agent", t.userAgent)
	if req.Method == http.MethodPost && req.Header.Get("Idempotency-Key") == "" {
		req.Header.Set("Idempotency-Key", newIdempotencyKey())
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.next.Do(req)
		wait, retry := t.retryable(req, resp, err, attempt)
		if !retry {
			return t.answer(resp, err)
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req, err = rewind(req); err != nil {
			return nil, err
		}
	}
}

// retryable says whether to send req again after this attempt, and after
// how long.
func (t *transport) retryable(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.retry.attempts || req.Context().Err() != nil {
		return 0, false
	}
	backoff := t.backoff(attempt)
	switch {
	case err != nil:
		return backoff, req.Method != http.MethodPatch // PATCH may have applied
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusServiceUnavailable:
		if ra := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 {
			return ra, true
		}
		return backoff, true
	}
	return 0, false
}

// backoff doubles from first up to most, with jitter so that many clients
// do not retry in step.
func (t *transport) backoff(attempt int) time.Duration {
	d := min(t.retry.first<<(attempt-1), t.retry.most)
	return d/2 + rand.N(d/2+1)
}

// answer passes a success (or a 304) on and makes an *APIError of an
// answer of 400 or more.
func (t *transport) answer(resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return nil, apiErrorOf(resp, body)
}

// rewind makes req sendable again: a fresh body from GetBody.
func rewind(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("workshop client: the request body cannot be sent again")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

// newIdempotencyKey is a random key for one POST and its retries.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = cryptorand.Read(b[:])
	return "sdk-" + hex.EncodeToString(b[:])
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
