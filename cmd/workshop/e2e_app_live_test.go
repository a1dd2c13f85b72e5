package main

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webapp"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// liveStream is an open board event stream, read as a browser's
// EventSource would: the last board sent, and when it came.
type liveStream struct {
	t      *testing.T
	mu     sync.Mutex
	boards []string
	at     []time.Time
	other  []string // events other than board
	ended  chan struct{}
	cancel func()
}

// openLive opens the board's event stream with the browser's cookies.
func (b *browser) openLive(path string) *liveStream {
	b.t.Helper()
	ctx, cancel := context.WithCancel(b.t.Context())
	req, err := http.NewRequestWithContext(ctx, "GET", b.base+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := b.c.Do(req)
	if err != nil {
		cancel()
		b.t.Fatalf("GET %s: %v", path, err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		res.Body.Close()
		cancel()
		b.t.Fatalf("GET %s: %d %q, want 200 text/event-stream", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &liveStream{t: b.t, ended: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.ended)
		defer res.Body.Close()
		_ = webapp.ReadEvents(res.Body, func(name, data string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if name == "board" {
				s.boards = append(s.boards, data)
				s.at = append(s.at, time.Now())
			} else {
				s.other = append(s.other, name)
			}
		})
	}()
	b.t.Cleanup(cancel)
	return s
}

// waitBoard waits for a board with every text, sent after since, and
// tells how long after since it came.
func (s *liveStream) waitBoard(step string, since time.Time, within time.Duration, texts ...string) time.Duration {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s.mu.Lock()
		for i, b := range s.boards {
			if s.at[i].Before(since) {
				continue
			}
			all := true
			for _, x := range texts {
				all = all && strings.Contains(b, x)
			}
			if all {
				s.mu.Unlock()
				return s.at[i].Sub(since)
			}
		}
		n := len(s.boards)
		last := ""
		if n > 0 {
			last = s.boards[n-1]
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: no board with %q within %v (%d boards; last %.400s)", step, texts, within, n, last)
		}
		select {
		case <-s.ended:
			s.t.Fatalf("%s: the stream ended", step)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestAppLiveBoard(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Live Motors", "pro", 1)
		other := w.org("Other Motors", "pro", 1)
		appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		srv := startServer(t, db.URL)
		loc := a.Locations[0]
		board := "/locations/" + loc.ID + "/board"

		newBrowser(t, srv.URL).get(board+"/events").want(t, "the stream signed out", http.StatusSeeOther, "/login?next="+url.QueryEscape(board+"/events"))
		b := newBrowser(t, srv.URL)
		b.login("advisor@example.com", testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
		b.get("/locations/"+other.Locations[0].ID+"/board/events").want(t, "another organisation's stream", http.StatusNotFound, "")
		b.get(board).want(t, "the board", http.StatusOK, "", `data-live="`+board+`/events"`, "live.", "Wall display", "No bays yet.", "No technicians yet.")
		wall := b.get(board + "?display=wall")
		wall.want(t, "the wall display", http.StatusOK, "", `class="wall"`, `http-equiv="refresh"`, "live.", html.EscapeString(loc.Name), "All jobs")
		if strings.Contains(wall.body, `action="/logout"`) {
			t.Error("the wall display has the header's controls")
		}

		live := b.openLive(board + "/events")
		live.waitBoard("the board on opening", time.Time{}, 5*time.Second, "All jobs")

		// A job through the API, made by a key: on the board within 2 s.
		start := time.Now()
		r := mpCreateJob(http.DefaultClient, srv.URL, a.Key.Key, map[string]any{"locationId": loc.ID, "vehiclePlate": "LIVE-1",
			"vehicleMake": "Volvo", "vehicleModel": "V70", "promiseTime": time.Now().Add(-time.Hour).Format(time.RFC3339)})
		if r.err != nil || r.job.JobNumber == "" {
			t.Fatalf("create a job: %d %v", r.status, r.err)
		}
		took := live.waitBoard("a job made through the API", start, 2*time.Second, r.job.JobNumber, "LIVE-1", "Volvo V70", "Late: promise passed")
		t.Logf("%s: API write to the stream in %v", db.Name, took)

		// A technician made by `workshop admin` (another process, no event).
		start = time.Now()
		out := runCmd(t, map[string]string{"WORKSHOP_DATABASE_URL": db.URL}, "admin", "technician", "create", "--location", loc.ID, "--name", "Zora Live").object(t)
		took = live.waitBoard("a technician made by workshop admin", start, 2*time.Second, "Zora Live", "not clocked in")
		t.Logf("%s: workshop admin technician create to the stream in %v", db.Name, took)

		// Deleted again: gone from the board.
		start = time.Now()
		runCmd(t, map[string]string{"WORKSHOP_DATABASE_URL": db.URL}, "admin", "technician", "delete", out["id"].(string)).object(t)
		live.waitBoard("the technician deleted", start, 2*time.Second, "No technicians yet.")

		// Shutdown ends the stream, and the server stops without waiting for it.
		start = time.Now()
		if err := srv.Stop(); err != nil {
			t.Errorf("shutdown with a stream open: %v", err)
		}
		select {
		case <-live.ended:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream outlived the server")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("shutdown with a stream open took %v", d)
		}
	})
}

// On PostgreSQL a change made through a second server process shows on
// the first one's stream within 2 s.
func TestAppLiveBoardAcrossProcesses(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t) // skips without WORKSHOP_TEST_POSTGRES_URL
	w := newWorld(t, dbURL)
	a := w.org("Two Process Live", "pro", 1)
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	first, second := startServer(t, dbURL), startServer(t, dbURL)
	board := "/locations/" + a.Locations[0].ID + "/board"
	b := newBrowser(t, first.URL)
	b.login("advisor@example.com", testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
	live := b.openLive(board + "/events")
	live.waitBoard("the board on opening", time.Time{}, 5*time.Second, "All jobs")

	var worst time.Duration
	for i := range 3 {
		start := time.Now()
		r := mpCreateJob(http.DefaultClient, second.URL, a.Key.Key, map[string]any{"locationId": a.Locations[0].ID})
		if r.err != nil {
			t.Fatalf("create a job on the second server: %v", r.err)
		}
		took := live.waitBoard("a job made through the second server", start, 2*time.Second, r.job.JobNumber)
		t.Logf("postgres, across processes, change %d: %v", i+1, took)
		worst = max(worst, took)
	}
	t.Logf("postgres, across processes: worst of 3 %v", worst)
}
