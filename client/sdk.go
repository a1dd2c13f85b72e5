package client

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// API is the workshop API's Go SDK: the generated operations
// (ClientWithResponses: one method per operation, typed requests and
// answers) over a transport that authenticates, names the caller's user
// agent, retries what is safe to retry and turns every answer of 400 or
// more into an *APIError. Its list iterators (Jobs, Technicians, ...)
// follow nextCursor.
type API struct {
	*ClientWithResponses
}

// Option configures New.
type Option func(*settings)

type settings struct {
	baseURL, key, userAgent string
	doer                    HttpRequestDoer
	retry                   retryPolicy
}

// DefaultBaseURL is the address of a workshop serve started without --addr.
const DefaultBaseURL = "http://127.0.0.1:8080"

// BaseURL is the server's address, without /v1 (default DefaultBaseURL).
func BaseURL(u string) Option { return func(s *settings) { s.baseURL = u } }

// APIKey is the API key (wsk_...) every request is sent with.
func APIKey(key string) Option { return func(s *settings) { s.key = key } }

// HTTPClient sends the requests (default: an http.Client with a 30 s
// timeout). Anything with Do(*http.Request) will do.
func HTTPClient(c HttpRequestDoer) Option { return func(s *settings) { s.doer = c } }

// UserAgent names the caller in the User-Agent header (the server logs it),
// before the SDK's own name.
func UserAgent(ua string) Option { return func(s *settings) { s.userAgent = ua } }

// MaxAttempts is how many times a request is sent at most, the first
// included (default 4; 1 turns retries off). See Retries.
func MaxAttempts(n int) Option { return func(s *settings) { s.retry.attempts = max(1, n) } }

// RetryBackoff is the wait before the first retry, doubled before each
// next one up to max (defaults 250ms and 8s); a Retry-After the server
// sends wins over it.
func RetryBackoff(first, most time.Duration) Option {
	return func(s *settings) { s.retry.first, s.retry.most = first, most }
}

// sdkAgent is the SDK's part of the User-Agent.
const sdkAgent = "workshop-go-sdk"

// New makes an API client.
//
// Retries: a request is sent again, after a backoff that honours
// Retry-After, when the answer is 429 or 503 (the server did not run it)
// or when the network failed before an answer (for GET, HEAD, PUT, DELETE,
// and POST, which carries an Idempotency-Key: one generated for the
// request unless the caller set it, the same on every attempt, so the
// server runs it once). A PATCH is not resent after a network failure:
// it carries its own version, and the first attempt may have applied.
func New(opts ...Option) (*API, error) {
	s := settings{baseURL: DefaultBaseURL, retry: defaultRetry}
	for _, o := range opts {
		o(&s)
	}
	if s.doer == nil {
		s.doer = &http.Client{Timeout: 30 * time.Second}
	}
	if !strings.HasPrefix(s.baseURL, "http://") && !strings.HasPrefix(s.baseURL, "https://") {
		return nil, errors.New("workshop client: the base URL must be http:// or https://")
	}
	agent := sdkAgent
	if s.userAgent != "" {
		agent = s.userAgent + " " + sdkAgent
	}
	t := &transport{next: s.doer, key: s.key, userAgent: agent, retry: s.retry, sleep: sleepContext}
	c, err := NewClientWithResponses(strings.TrimSuffix(s.baseURL, "/"), WithHTTPClient(t))
	if err != nil {
		return nil, err
	}
	return &API{ClientWithResponses: c}, nil
}
