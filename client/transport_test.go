package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// scripted answers each attempt from its script (nil response: a network
// error) and records what it was sent.
type scripted struct {
	answers []int // status per attempt; 0: the network fails
	keys    []string
	bodies  []string
	agents  []string
}

func (s *scripted) Do(r *http.Request) (*http.Response, error) {
	n := len(s.keys)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.agents = append(s.agents, r.Header.Get("User-Agent"))
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
	}
	s.bodies = append(s.bodies, string(body))
	status := s.answers[min(n, len(s.answers)-1)]
	if status == 0 {
		return nil, errors.New("connection reset by peer")
	}
	h := http.Header{}
	if status == 429 {
		h.Set("Retry-After", "7")
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(`{"code":"x","detail":"d","requestId":"req_9"}`))}, nil
}

func TestTransportRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method string
		answers      []int
		wantSent     int
		wantStatus   int // 0: an error
		wantWaits    []time.Duration
	}{
		{"a POST after a network failure", "POST", []int{0, 201}, 2, 201, nil},
		{"a GET after 503", "GET", []int{503, 200}, 2, 200, nil},
		{"Retry-After of a 429", "GET", []int{429, 200}, 2, 200, []time.Duration{7 * time.Second}},
		{"a PATCH is not resent after a network failure", "PATCH", []int{0, 200}, 1, 0, nil},
		{"a PATCH is resent after 503", "PATCH", []int{503, 200}, 2, 200, nil},
		{"attempts run out", "GET", []int{503}, 3, 0, nil},
		{"a 409 is no reason to retry", "POST", []int{409, 201}, 1, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doer := &scripted{answers: tc.answers}
			var waits []time.Duration
			tr := &transport{next: doer, key: "wsk_k", userAgent: "me " + sdkAgent, retry: retryPolicy{attempts: 3, first: time.Second, most: time.Second},
				sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			req, _ := http.NewRequestWithContext(t.Context(), tc.method, "http://x/v1/scheduler/jobs", bytes.NewReader([]byte(`{"a":1}`)))
			resp, err := tr.Do(req)
			if len(doer.keys) != tc.wantSent {
				t.Errorf("sent %d times, want %d", len(doer.keys), tc.wantSent)
			}
			switch {
			case tc.wantStatus == 0 && err == nil:
				t.Errorf("got %d, want an error", resp.StatusCode)
			case tc.wantStatus != 0 && (err != nil || resp.StatusCode != tc.wantStatus):
				t.Errorf("got %v, %v; want %d", resp, err, tc.wantStatus)
			}
			var apiErr *APIError
			if err != nil && len(tc.answers) > 0 && tc.answers[min(tc.wantSent-1, len(tc.answers)-1)] >= 400 &&
				(!errors.As(err, &apiErr) || apiErr.RequestID != "req_9") {
				t.Errorf("error %v: want an *APIError with the request id", err)
			}
			for i, b := range doer.bodies {
				if b != `{"a":1}` {
					t.Errorf("attempt %d sent body %q, want the body again", i+1, b)
				}
			}
			if tc.method == "POST" && (doer.keys[0] == "" || len(slices.Compact(slices.Clone(doer.keys))) != 1) {
				t.Errorf("Idempotency-Keys %q: want one generated key on every attempt", doer.keys)
			}
			if tc.wantWaits != nil && !slices.Equal(waits, tc.wantWaits) {
				t.Errorf("waited %v, want %v", waits, tc.wantWaits)
			}
			if doer.agents[0] != "me "+sdkAgent {
				t.Errorf("User-Agent %q, want %q", doer.agents[0], "me "+sdkAgent)
			}
		})
	}
}
