package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// APIError is an answer of status 400 or more: the problem the server
// sent (RFC 9457). Every operation of API returns one as its error; find
// it with errors.As.
//
//	var apiErr *client.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == "validation_failed" { ... }
type APIError struct {
	StatusCode int
	Code       string       // the stable machine name: validation_failed, not_found, ...
	Detail     string       // for people
	Field      string       // the first offending field, if any
	Errors     []FieldError // every offending field of a validation error
	RequestID  string       // quote it to support
	// RetryAfter is the wait the server asked for (429, 503), 0 when none.
	RetryAfter time.Duration
	// Problem is the whole problem as sent; Body the raw body.
	Problem Problem
	Body    []byte
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workshop API: %d %s", e.StatusCode, e.Code)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Field != "" {
		b.WriteString(" (field " + e.Field + ")")
	}
	if e.RequestID != "" {
		b.WriteString(" [" + e.RequestID + "]")
	}
	return b.String()
}

// apiErrorOf reads an error answer; body is the whole body.
func apiErrorOf(resp *http.Response, body []byte) *APIError {
	e := &APIError{StatusCode: resp.StatusCode, Body: body, RequestID: resp.Header.Get("X-Request-Id"),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	if json.Unmarshal(body, &e.Problem) == nil && e.Problem.Code != "" {
		e.Code, e.Detail = string(e.Problem.Code), e.Problem.Detail
		if e.Problem.Field != nil {
			e.Field = *e.Problem.Field
		}
		if e.Problem.Errors != nil {
			e.Errors = *e.Problem.Errors
		}
		if e.Problem.RequestId != "" {
			e.RequestID = e.Problem.RequestId
		}
		return e
	}
	// Not a problem: a proxy's page, say.
	e.Code = strings.ToLower(strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "_"))
	e.Detail = strings.TrimSpace(string(body[:min(len(body), 200)]))
	return e
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
