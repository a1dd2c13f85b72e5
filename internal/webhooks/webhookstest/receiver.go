// Package webhookstest is a webhook receiver for tests and benchmarks: a
// local HTTP server that records every delivery and answers as scripted
// per path.
package webhookstest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Answer is how the receiver answers a request.
// A Block channel holds the answer until it is closed or the request ends.
type Answer struct {
	Status int
	Delay  time.Duration
	Block  <-chan struct{}
	Header http.Header // extra response headers (Location of a redirect)
	Body   string
}

// Behavior scripts the answers of a path: it sees the request (its number
// on the path, headers, body) before it is answered.
type Behavior func(h *Hit) Answer

// OK answers 200 at once.
func OK() Behavior { return func(*Hit) Answer { return Answer{Status: 200} } }

// Status answers status at once.
func Status(status int) Behavior { return func(*Hit) Answer { return Answer{Status: status} } }

// Hit is one request received.
type Hit struct {
	Path     string
	N        int // its number on the path, from 1
	At       time.Time
	Header   http.Header
	Body     []byte
	Event    string // of the body
	EventID  string // of the body
	DataID   string // data.id of the body
	Delivery string // X-Service-Delivery
	Attempt  int    // X-Service-Attempt
	Status   int    // the answer's status; 0 when the caller gave up first
}

// Receiver records deliveries. Paths without a behavior answer 200.
type Receiver struct {
	URL string // http://127.0.0.1:PORT

	srv       *http.Server
	mu        sync.Mutex
	hits      []*Hit
	count     map[string]int
	behaviors map[string]Behavior
	changed   chan struct{} // closed and replaced at every hit
}

// Start listens on a free port of 127.0.0.1; Close stops it.
func Start() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Receiver{URL: "http://" + ln.Addr().String(), count: map[string]int{}, behaviors: map[string]Behavior{},
		changed: make(chan struct{})}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Close stops the receiver, cutting requests in flight.
func (r *Receiver) Close() { _ = r.srv.Close() }

// Set scripts the answers on path.
func (r *Receiver) Set(path string, b Behavior) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.behaviors[path] = b
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	var parsed struct {
		ID    string `json:"id"`
		Event string `json:"event"`
		Data  struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &parsed)
	attempt, _ := strconv.Atoi(req.Header.Get("X-Service-Attempt"))
	r.mu.Lock()
	r.count[req.URL.Path]++
	h := &Hit{Path: req.URL.Path, N: r.count[req.URL.Path], At: time.Now(), Header: req.Header.Clone(), Body: body,
		Event: parsed.Event, EventID: parsed.ID, DataID: parsed.Data.ID, Delivery: req.Header.Get("X-Service-Delivery"), Attempt: attempt}
	b := r.behaviors[req.URL.Path]
	r.mu.Unlock()
	a := Answer{Status: 200}
	if b != nil {
		a = b(h)
	}
	h.Status = a.Status
	if a.Delay > 0 {
		select {
		case <-time.After(a.Delay):
		case <-req.Context().Done():
		}
	}
	if a.Block != nil {
		select {
		case <-a.Block:
		case <-req.Context().Done():
		}
	}
	if req.Context().Err() != nil {
		h.Status = 0 // the caller gave up before the answer
	}
	// A hit is recorded once answered: a waiter sees it with its answer sent.
	r.mu.Lock()
	r.hits = append(r.hits, h)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	for k, v := range a.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// Hits are the requests answered on path (every path when ""), oldest first.
func (r *Receiver) Hits(path string) []*Hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Hit
	for _, h := range r.hits {
		if path == "" || h.Path == path {
			out = append(out, h)
		}
	}
	return out
}

// Received counts the requests that arrived on path (answered or not).
func (r *Receiver) Received(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[path]
}

// Wait waits until the hits of path (every path when "") satisfy done, or
// ctx ends; it returns the hits then.
func (r *Receiver) Wait(ctx context.Context, path string, done func([]*Hit) bool) ([]*Hit, error) {
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		hits := r.Hits(path)
		if done(hits) {
			return hits, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return hits, fmt.Errorf("%d requests answered on %q when the wait ended: %w", len(hits), path, ctx.Err())
		}
	}
}

// WaitFor waits for a request on path with event for the record dataID.
func (r *Receiver) WaitFor(ctx context.Context, path, event, dataID string) (*Hit, error) {
	var found *Hit
	_, err := r.Wait(ctx, path, func(hs []*Hit) bool {
		for _, h := range hs {
			if h.Event == event && h.DataID == dataID {
				found = h
				return true
			}
		}
		return false
	})
	return found, err
}
