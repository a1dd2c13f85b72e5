// Package apitest runs the real service in-process for end-to-end tests and
// checks every response it gets against the OpenAPI document
// (api/openapi.yaml) and the conventions every response shares (contract
// section 2).
//
// The serve function lives in package main, so a test passes it in as a
// ServeFunc:
//
//	srv := apitest.Start(t, dbURL, func(ctx context.Context, c apitest.Config) error {
//		return serveWith(ctx, serveConfig{database: c.Database, addr: c.Addr, onListen: c.OnListen, ...}, io.Discard, c.Log)
//	})
//	client := apitest.Client(t, srv.URL, key)
package apitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"
)

// Config is what a ServeFunc must run the server with.
type Config struct {
	Database string // database URL
	Addr     string // listen address; "127.0.0.1:0" picks a free port
	// OnListen must be called with the bound address once the listener is
	// open; Start waits for it.
	OnListen           func(addr string)
	RateLimitPerMinute int           // requests per key a minute; 0 turns the limit off
	ShutdownGrace      time.Duration // how long in-flight requests may finish once ctx is cancelled
	BodyTimeout        time.Duration // how long a request's whole body may take; 0: no limit
	Log                io.Writer     // the server's log (its stderr)
}

// ServeFunc runs the real server until ctx is cancelled and returns what
// the server returns (nil after a clean shutdown).
type ServeFunc func(ctx context.Context, c Config) error

// Option adjusts the Config of Start.
type Option func(*Config)

// WithRateLimit turns the per-key rate limit on.
func WithRateLimit(perMinute int) Option { return func(c *Config) { c.RateLimitPerMinute = perMinute } }

// WithBodyTimeout cuts request bodies slower than d.
func WithBodyTimeout(d time.Duration) Option { return func(c *Config) { c.BodyTimeout = d } }

// WithShutdownGrace sets how long in-flight requests may finish on Stop.
func WithShutdownGrace(d time.Duration) Option { return func(c *Config) { c.ShutdownGrace = d } }

// startTimeout bounds how long Start waits for the server to listen
// (migrations included).
const startTimeout = 60 * time.Second

// Server is a running server.
type Server struct {
	URL      string // http://127.0.0.1:PORT, no trailing slash
	Addr     string // 127.0.0.1:PORT
	Database string
	Log      *LogBuffer // everything the server logged

	cancel   context.CancelFunc
	done     chan struct{}
	err      error
	stopOnce sync.Once
}

// Start runs serve on databaseURL on a free port of 127.0.0.1, waits until
// it listens, and stops it when the test ends (failing the test when the
// server does not shut down cleanly). The rate limit is off unless an
// option turns it on.
func Start(t testing.TB, databaseURL string, serve ServeFunc, opts ...Option) *Server {
	t.Helper()
	s := &Server{Database: databaseURL, Log: &LogBuffer{}, done: make(chan struct{})}
	listening := make(chan string, 1)
	cfg := Config{
		Database:      databaseURL,
		Addr:          "127.0.0.1:0",
		OnListen:      func(addr string) { listening <- addr },
		ShutdownGrace: 10 * time.Second,
		Log:           s.Log,
	}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		defer close(s.done)
		s.err = serve(ctx, cfg)
	}()
	select {
	case addr := <-listening:
		s.Addr, s.URL = addr, "http://"+addr
	case <-s.done:
		cancel()
		t.Fatalf("the server stopped before listening: %v\nlog:\n%s", s.err, s.Log)
	case <-time.After(startTimeout):
		cancel()
		t.Fatalf("the server did not listen within %s\nlog:\n%s", startTimeout, s.Log)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("the server did not shut down cleanly: %v", err)
		}
	})
	return s
}

// Stop cancels the server's context, waits for it to return and returns its
// error; later calls return the same.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
	})
	return s.err
}

// LogBuffer collects a server's log, safe for concurrent use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines decodes the log as JSON lines; a line that is not a JSON object is
// returned as an error.
func (b *LogBuffer) Lines() ([]map[string]any, error) {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader([]byte(b.String())))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return out, &logLineError{line: sc.Text(), err: err}
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

type logLineError struct {
	line string
	err  error
}

func (e *logLineError) Error() string {
	return "log line is not a JSON object: " + e.err.Error() + ": " + e.line
}
