package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.Method+" "+r.URL.Path+" "+r.Header.Get("Idempotency-Key")+" "+string(b)]++
		mu.Unlock()
	}))
	defer srv.Close()

	repeating := func(int64) (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL+"/same", nil) }
	distinct := func(i int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, srv.URL+"/jobs", strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
		if err == nil {
			r.Header.Set("Idempotency-Key", fmt.Sprint("k", i))
		}
		return r, err
	}
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
	mu.Lock()
	defer mu.Unlock()
	for key, n := range seen {
		if strings.HasPrefix(key, "POST") && n != 1 {
			t.Errorf("%s sent %d times, want once", key, n)
		}
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
