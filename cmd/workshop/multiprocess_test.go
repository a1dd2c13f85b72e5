package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// mpServe runs a real server (its own store pool: to the database, another
// process) on databaseURL and returns its base URL; it is stopped, and must
// stop cleanly, when the test ends. Its shutdown grace is apitest's 10 s, not
// less: net/http's Shutdown waits up to 5 s for a connection that has not
// sent a request yet, which a client leaves behind when it dials for a
// request that another connection then served (20 concurrent creates do).
func mpServe(t *testing.T, databaseURL string) string {
	t.Helper()
	return serveWritingTo(t, databaseURL, io.Discard)
}

// serveWritingTo is mpServe with the server's stdout (the setup link, the
// demo's lines) written to stdout.
func serveWritingTo(t *testing.T, databaseURL string, stdout io.Writer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveWith(ctx, serveConfig{database: databaseURL, addr: "127.0.0.1:0", onListen: func(a string) { addrc <- a },
			retryDelays: []time.Duration{time.Second}, webhookTimeout: time.Second, arrivalSkew: 5 * time.Minute,
			shutdownGrace: 10 * time.Second}, stdout, io.Discard)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		cancel()
		t.Fatalf("server stopped before listening: %v", err)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("server did not listen within a minute")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server shutdown: %v", err)
		}
	})
	return "http://" + addr
}

// mpJob is what the test reads of a job.
type mpJob struct {
	ID          string  `json:"id"`
	JobNumber   string  `json:"jobNumber"`
	ExternalKey *string `json:"externalKey"`
}

type mpResult struct {
	status int
	job    mpJob
	err    error
}

func mpCreateJob(client *http.Client, base, key string, body map[string]any) mpResult {
	data, err := json.Marshal(body)
	if err != nil {
		return mpResult{err: err}
	}
	req, err := http.NewRequest(http.MethodPost, base+"/v1/scheduler/jobs", bytes.NewReader(data))
	if err != nil {
		return mpResult{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return mpResult{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return mpResult{status: resp.StatusCode, err: err}
	}
	r := mpResult{status: resp.StatusCode}
	if resp.StatusCode/100 != 2 {
		r.err = fmt.Errorf("status %d: %s", resp.StatusCode, raw)
		return r
	}
	r.err = json.Unmarshal(raw, &r.job)
	return r
}

// mpConcurrently sends n creates at once, alternating between the servers.
func mpConcurrently(bases []string, key string, n int, body func(i int) map[string]any) []mpResult {
	client := &http.Client{Timeout: 60 * time.Second}
	results := make([]mpResult, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i] = mpCreateJob(client, bases[i%len(bases)], key, body(i))
		})
	}
	close(start)
	wg.Wait()
	return results
}

func mpListJobs(t *testing.T, base, key string, query url.Values) []mpJob {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/scheduler/jobs?"+query.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Data       []mpJob `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /v1/scheduler/jobs?%s = %d %s, want 200", query.Encode(), resp.StatusCode, raw)
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	if page.NextCursor != nil {
		t.Fatalf("GET /v1/scheduler/jobs?%s has a next page, want every job on one", query.Encode())
	}
	return page.Data
}

// TestMultiProcessJobCreates: two server processes on one PostgreSQL
// database never double-create a job with one externalKey and never give
// two jobs one number or leave a gap (contract section 1).
func TestMultiProcessJobCreates(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t) // skips without WORKSHOP_TEST_POSTGRES_URL
	ctx := t.Context()
	st := storetest.Open(t, dbURL) // migrates before the servers start
	op := operator.New(st)
	org, err := op.CreateOrg(ctx, "Two Process Motors", workshop.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	dupLoc, err := op.CreateLocation(ctx, org.ID, "Berlin", "Europe/Berlin", "EUR")
	if err != nil {
		t.Fatal(err)
	}
	numLoc, err := op.CreateLocation(ctx, org.ID, "Tokyo", "Asia/Tokyo", "JPY")
	if err != nil {
		t.Fatal(err)
	}
	user, err := op.CreateUser(ctx, org.ID, "owner@example.com", workshop.RoleOwner, false)
	if err != nil {
		t.Fatal(err)
	}
	key, err := op.CreateKey(ctx, operator.KeyRequest{UserID: user.ID})
	if err != nil {
		t.Fatal(err)
	}
	bases := []string{mpServe(t, dbURL), mpServe(t, dbURL)}

	t.Run("one externalKey", func(t *testing.T) {
		results := mpConcurrently(bases, key.Key, 20, func(i int) map[string]any {
			return map[string]any{"locationId": dupLoc.ID, "externalKey": "dms-two-process", "vehiclePlate": fmt.Sprint("B-", i)}
		})
		created, winner := 0, ""
		for _, r := range results {
			if r.status == http.StatusCreated {
				created++
				winner = r.job.ID
			}
		}
		if created != 1 {
			t.Errorf("%d creates answered 201, want exactly 1", created)
		}
		for i, r := range results {
			switch {
			case r.err != nil:
				t.Errorf("create %d (server %d): %v", i, i%2, r.err)
			case r.status != http.StatusCreated && r.status != http.StatusOK:
				t.Errorf("create %d (server %d): status %d, want 201 or 200", i, i%2, r.status)
			case r.job.ID != winner:
				t.Errorf("create %d (server %d): job %q, want the created %q", i, i%2, r.job.ID, winner)
			}
		}
		for i, base := range bases {
			jobs := mpListJobs(t, base, key.Key, url.Values{"locationId": {dupLoc.ID}})
			if len(jobs) != 1 || jobs[0].ID != winner {
				t.Errorf("server %d lists %+v, want the one job %s", i, jobs, winner)
			}
		}
	})

	t.Run("assigned numbers", func(t *testing.T) {
		zone, err := time.LoadLocation(numLoc.Timezone)
		if err != nil {
			t.Fatal(err)
		}
		yearBefore := time.Now().In(zone).Year()
		const n = 30
		results := mpConcurrently(bases, key.Key, n, func(i int) map[string]any {
			return map[string]any{"locationId": numLoc.ID, "arrivalTime": nil}
		})
		yearAfter := time.Now().In(zone).Year()
		var numbers []string
		for i, r := range results {
			if r.err != nil || r.status != http.StatusCreated {
				t.Errorf("create %d (server %d): status %d, %v, want 201", i, i%2, r.status, r.err)
				continue
			}
			numbers = append(numbers, r.job.JobNumber)
		}
		if len(numbers) == 0 {
			t.FailNow()
		}
		// The year is the location's local year when the jobs were made.
		year, _ := strconv.Atoi(strings.Split(numbers[0], "-")[1])
		if year != yearBefore && year != yearAfter {
			t.Errorf("jobNumber %s: year %d, want %d (the local year in %s)", numbers[0], year, yearBefore, numLoc.Timezone)
		}
		var want []string
		for i := range n {
			want = append(want, workshop.FormatJobNumber(year, i+1))
		}
		if slices.Sort(numbers); !slices.Equal(numbers, want) {
			t.Errorf("assigned numbers = %v, want each of %v once", numbers, want)
		}
		jobs := mpListJobs(t, bases[1], key.Key, url.Values{"locationId": {numLoc.ID}, "limit": {"200"}})
		if len(jobs) != n {
			t.Errorf("the location has %d jobs, want %d", len(jobs), n)
		}
	})
}
