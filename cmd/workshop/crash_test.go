package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// childEnv makes the test binary run as `workshop` (TestMain): the crash
// tests start it as a server process of its own, to kill it with SIGKILL.
const childEnv = "WORKSHOP_TEST_RUN_AS_WORKSHOP"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	}
	code := storetest.Main(m)
	closeBrowser()
	os.Exit(code)
}

// serveProcess is `workshop serve` running as a process of its own.
type serveProcess struct {
	base string
	cmd  *exec.Cmd
	once sync.Once
	mu   sync.Mutex
	logs strings.Builder // its log, for failure messages
}

// startServeProcess starts `workshop serve` on databaseURL, with short
// webhook retries and timeout (flags given in more override them), and
// waits until it listens. It is killed, if still running, when the test
// ends.
func startServeProcess(t *testing.T, databaseURL string, more ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--database", databaseURL, "--addr", "127.0.0.1:0", "--webhook-allow-insecure",
		"--webhook-retry-delays", "1s,1s,1s,1s", "--webhook-timeout", "1s"}, more...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd}
	t.Cleanup(p.kill)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.logs.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr <- line.Addr
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("workshop serve stopped before listening:\n%s", p.log())
		}
		p.base = "http://" + a
	case <-time.After(time.Minute):
		t.Fatalf("workshop serve did not listen within a minute:\n%s", p.log())
	}
	return p
}

func (p *serveProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// kill ends the process with SIGKILL: no shutdown of any kind.
func (p *serveProcess) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
}

// TestServeKilledLosesNoEvent: `workshop serve` killed with SIGKILL, first
// right after jobs were committed while their receiver was down (the events
// committed, not delivered), then while the receiver held its attempts
// (mid-delivery), loses no event: restarted, it delivers every one (at
// least once), on both databases.
func TestServeKilledLosesNoEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the killed deliveries' leases: the full run tests it")
	}
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL) // migrated before the servers start
		org := w.org("Crash Motors", workshop.PlanPro, 1)
		loc := org.Locations[0].ID
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		const path = "/crash"
		w.webhookTo(org.ID, "", rcv.URL+path)
		client := &http.Client{Timeout: 30 * time.Second}
		createJobs := func(base string, n int) []string {
			var ids []string
			for i := range n {
				r := mpCreateJob(client, base, org.Key.Key, map[string]any{"locationId": loc, "vehiclePlate": fmt.Sprint("K-", i)})
				if r.err != nil || r.status != http.StatusCreated {
					t.Fatalf("create job: %d %v", r.status, r.err)
				}
				ids = append(ids, r.job.ID)
			}
			return ids
		}

		// Committed, not delivered: the receiver answers 503.
		rcv.Set(path, webhookstest.Status(http.StatusServiceUnavailable))
		first := startServeProcess(t, db.URL)
		jobs := createJobs(first.base, 10)
		first.kill()

		// Mid-delivery: the receiver holds every attempt until the server
		// is killed.
		hold := make(chan struct{})
		rcv.Set(path, func(*webhookstest.Hit) webhookstest.Answer {
			return webhookstest.Answer{Status: http.StatusOK, Block: hold}
		})
		second := startServeProcess(t, db.URL)
		jobs = append(jobs, createJobs(second.base, 10)...)
		inFlight, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if !waitUntil(inFlight, func() bool { return rcv.Received(path) != len(rcv.Hits(path)) }) {
			t.Fatalf("no attempt in flight to kill within a minute:\n%s", second.log())
		}
		second.kill()
		rcv.Set(path, webhookstest.OK())
		close(hold)

		// The killed attempts are made again once their leases (a few
		// seconds, no longer renewed) run out.
		third := startServeProcess(t, db.URL)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		for _, id := range jobs {
			hit, err := waitDelivered(ctx, rcv, path, id)
			if err != nil {
				t.Fatalf("job %s: its job.created never arrived with a 200: %v\n%s", id, err, third.log())
			}
			if hit.Attempt < 1 {
				t.Errorf("job %s: X-Service-Attempt %d, want at least 1", id, hit.Attempt)
			}
		}
	})
}

// waitDelivered waits for a job.created of the job answered 200.
func waitDelivered(ctx context.Context, rcv *webhookstest.Receiver, path, jobID string) (*webhookstest.Hit, error) {
	var found *webhookstest.Hit
	_, err := rcv.Wait(ctx, path, func(hs []*webhookstest.Hit) bool {
		for _, h := range hs {
			if h.Event == workshop.EventJobCreated && h.DataID == jobID && h.Status == http.StatusOK {
				found = h
				return true
			}
		}
		return false
	})
	return found, err
}
