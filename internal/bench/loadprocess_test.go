package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
)

// The load process replays, in order, what the scenario's builder built:
// one request for a builder that repeats itself, each distinct request
// once for one that does not, and it stops with an error when a run needs
// more than were recorded.
func TestLoadProcessReplaysTheRecordedRequests(t *testing.T) {
	t.Parallel()
	srv := newRequestCounter(t)
	repeating := func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL+"/same", nil) }
	distinct := distinctPosts(srv.URL)
	cfg := Config{Connections: 2, Duration: 100 * time.Millisecond, Warmup: 0, LoadPool: 1_000_000}

	plan, err := cfg.recordPlan(repeating)
	if err != nil || !plan.Repeat || len(plan.Requests) != 1 {
		t.Fatalf("repeating builder: got repeat %v with %d requests (%v), want one request repeated", plan.Repeat, len(plan.Requests), err)
	}
	res := serveLoad(t, plan)
	if res.Requests == 0 || res.Errors != 0 {
		t.Errorf("repeated replay: got %d requests, %d errors (%s); want some, none", res.Requests, res.Errors, res.FirstError)
	}

	cfg.LoadPool, cfg.Duration = 50, 5*time.Second // the run stops when the pool runs out
	plan, err = cfg.recordPlan(distinct)
	if err != nil || plan.Repeat || len(plan.Requests) != 50 {
		t.Fatalf("distinct builder: got repeat %v with %d requests (%v), want 50 distinct", plan.Repeat, len(plan.Requests), err)
	}
	var out bytes.Buffer
	in, _ := json.Marshal(plan)
	err = ServeLoad(context.Background(), bytes.NewReader(in), &out)
	if err == nil || !strings.Contains(err.Error(), "ran out") {
		t.Errorf("a run longer than its 50 requests: got %v, want the pool to run out", err)
	}
	srv.wantEachOnce(t)
}

// requestCounter is a server that counts the requests sent to it, by
// method, path, Idempotency-Key and body.
type requestCounter struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int
}

func newRequestCounter(t *testing.T) *requestCounter {
	c := &requestCounter{seen: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.seen[r.Method+" "+r.URL.Path+" "+r.Header.Get("Idempotency-Key")+" "+string(b)]++
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// wantEachOnce fails t for a POST sent more than once, and tells how many
// distinct POSTs were sent.
func (c *requestCounter) wantEachOnce(t *testing.T) (posts int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, n := range c.seen {
		if !strings.HasPrefix(key, "POST") {
			continue
		}
		posts++
		if n != 1 {
			t.Errorf("%s sent %d times, want once", key, n)
		}
	}
	return posts
}

// distinctPosts builds a different POST each time, with its own
// Idempotency-Key, as the create scenario does.
func distinctPosts(base string) loadgen.Request {
	return func(i int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, base+"/jobs", strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
		if err == nil {
			r.Header.Set("Idempotency-Key", fmt.Sprint("k", i))
		}
		return r, err
	}
}

func serveLoad(t *testing.T, plan loadPlan) loadgen.Result {
	t.Helper()
	in, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ServeLoad(context.Background(), bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var res loadgen.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("the answer %q: %v", out.String(), err)
	}
	return res
}

// loadProcessEnv makes the test binary the load process (TestMain).
const loadProcessEnv = "WORKSHOP_BENCH_TEST_LOAD_PROCESS"

// TestMain lets a test's Config.LoadCommand run this binary as the load
// process, as `workshop bench load` is run by `bench --load-process`.
func TestMain(m *testing.M) {
	if os.Getenv(loadProcessEnv) == "1" {
		if err := ServeLoad(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunClosedInTheLoadProcess runs a closed loop of distinct requests in
// a process of its own: each recorded request is sent once, in order of
// recording, and the result comes back.
func TestRunClosedInTheLoadProcess(t *testing.T) {
	t.Parallel()
	srv := newRequestCounter(t)
	cfg := Config{Connections: 2, Duration: 200 * time.Millisecond, LoadPool: 50_000,
		LoadCommand: []string{"env", loadProcessEnv + "=1", os.Args[0]}}
	res, err := cfg.runClosed(t.Context(), distinctPosts(srv.URL))
	if err != nil {
		t.Fatalf("runClosed in the load process: %v", err)
	}
	if posts := srv.wantEachOnce(t); res.Requests == 0 || res.Errors != 0 || int64(posts) < res.Requests {
		t.Errorf("got %d requests, %d errors (%s), %d distinct requests seen; want some, none, each distinct",
			res.Requests, res.Errors, res.FirstError, posts)
	}
}
