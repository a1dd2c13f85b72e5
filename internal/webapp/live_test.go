package webapp

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// waitFor waits for cond, failing the test after a deadline.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// told waits for a signal on a subscription.
func told(t *testing.T, what string, s *subscription, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-s.c:
		return time.Since(start)
	case <-time.After(within):
		t.Fatalf("%s: not told within %v", what, within)
		return 0
	}
}

func quiet(s *subscription) bool { return len(s.c) == 0 }

type hubWorld struct {
	st   *store.Store
	op   *operator.Operator
	org  string
	locA workshop.Location
	locB workshop.Location
}

func newHubWorld(t *testing.T, url string) *hubWorld {
	t.Helper()
	ctx := t.Context()
	st := storetest.Open(t, url)
	op := operator.New(st)
	org, err := op.CreateOrg(ctx, "Hub Motors", workshop.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	w := &hubWorld{st: st, op: op, org: org.ID}
	if w.locA, err = op.CreateLocation(ctx, org.ID, "A", "Europe/Berlin", "EUR"); err != nil {
		t.Fatal(err)
	}
	if w.locB, err = op.CreateLocation(ctx, org.ID, "B", "Europe/Berlin", "EUR"); err != nil {
		t.Fatal(err)
	}
	return w
}

// runHub runs a hub with the tick until the test ends.
func (w *hubWorld) runHub(t *testing.T, tick time.Duration) *hub {
	h := newHub(w.st, slog.New(slog.DiscardHandler))
	h.tick = tick
	ctx, cancel := context.WithCancel(context.Background())
	go h.Run(ctx)
	t.Cleanup(func() { cancel(); <-h.done })
	return h
}

func (w *hubWorld) createJob(t *testing.T, locationID string) {
	t.Helper()
	now := workshop.MicrosOf(time.Now())
	if _, err := w.st.CreateJob(t.Context(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: w.org, LocationID: locationID,
		Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, false); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
}

// A write of this process wakes the hub at once (its tick here is an
// hour): the location's subscribers are told, another location's are not,
// and a burst of writes while nobody reads is one signal.
func TestLiveHubTellsSubscribersOfTheirLocation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newHubWorld(t, db.URL)
		w.createJob(t, w.locA.ID) // before the hub: not news
		h := w.runHub(t, time.Hour)
		a, cancelA := h.subscribe(w.locA.ID)
		defer cancelA()
		a2, cancelA2 := h.subscribe(w.locA.ID)
		defer cancelA2()
		b, cancelB := h.subscribe(w.locB.ID)
		defer cancelB()
		// The hub starts at the outbox's end as it finds it: writes until
		// one is news show it has started.
		waitFor(t, "the hub started", 5*time.Second, func() bool {
			w.createJob(t, w.locA.ID)
			select {
			case <-a.c:
				return true
			case <-time.After(50 * time.Millisecond):
				return false
			}
		})
		waitFor(t, "the second subscriber told", time.Second, func() bool { return len(a2.c) == 1 })
		<-a2.c

		w.createJob(t, w.locA.ID)
		took := told(t, "subscriber of A", a, 2*time.Second)
		told(t, "second subscriber of A", a2, 2*time.Second)
		t.Logf("%s: a write of this process told in %v", db.Name, took)
		if !quiet(b) {
			t.Error("the subscriber of B was told of a change to A")
		}

		for range 10 {
			w.createJob(t, w.locB.ID)
		}
		told(t, "subscriber of B", b, 2*time.Second)
		if len(b.c) > 1 || !quiet(a) {
			t.Errorf("after a burst on B: B holds %d signals (at most 1), A %d (none)", len(b.c), len(a.c))
		}

		cancelB()
		w.createJob(t, w.locB.ID) // nobody to tell: no harm
		w.createJob(t, w.locA.ID)
		told(t, "A after B unsubscribed", a, 2*time.Second)
	})
}

// Writes that record no event (a technician or bay made or removed, as
// `workshop admin` does, or a write by another process) are found by the
// tick through the plan versions.
func TestLiveHubSeesWritesWithoutEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newHubWorld(t, db.URL)
		h := w.runHub(t, 50*time.Millisecond)
		a, cancel := h.subscribe(w.locA.ID)
		defer cancel()
		told(t, "first look at A's plan version", a, 2*time.Second)

		tech, err := w.op.CreateTechnician(t.Context(), operator.TechnicianRequest{LocationID: w.locA.ID, Name: "Mira", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		took := told(t, "technician created", a, 2*time.Second)
		t.Logf("%s: a technician created told in %v", db.Name, took)
		if _, err := w.op.DeleteTechnician(t.Context(), tech.ID); err != nil {
			t.Fatal(err)
		}
		told(t, "technician deleted", a, 2*time.Second)

		// Another process's write: a store of its own, whose commits do
		// not wake this hub.
		other := storetest.Open(t, db.URL)
		if _, err := operator.New(other).CreateBay(t.Context(), w.locA.ID, "Lift 9", nil, nil); err != nil {
			t.Fatal(err)
		}
		told(t, "bay created by another store", a, 2*time.Second)

		// A write with an event is told once: the tick after it finds the
		// plan version it moved already read.
		for range 3 { // settle: nothing pending
			select {
			case <-a.c:
			case <-time.After(150 * time.Millisecond):
			}
		}
		w.createJob(t, w.locA.ID)
		told(t, "job created", a, 2*time.Second)
		select {
		case <-a.c:
			t.Error("a job created was told twice (by its event, then by the plan version)")
		case <-time.After(4 * h.tick):
		}
	})
}

// syncBuffer is a writer safe to read while a stream writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A stream sends the board at once, renders a burst of changes as few
// boards (at most one per coalesce, the last change always rendered),
// sends heartbeats, and ends with "end" when its session is over, or when
// the hub stops.
// It runs in a synctest bubble: the stream's timers and the test's sleeps
// run on the bubble's fake clock, so no wall-clock load moves the count.
func TestLiveStreamCoalescesAndEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, liveStreamCoalescesAndEnds)
}

func liveStreamCoalescesAndEnds(t *testing.T) {
	var renders atomic.Int32
	var valid atomic.Bool
	valid.Store(true)
	out := &syncBuffer{}
	s := &stream{w: out, flush: func() error { return nil }, warn: func(error) {},
		render: func() ([]byte, error) {
			n := renders.Add(1)
			return []byte("<p>board " + strings.Repeat("x", int(n)) + "</p>\n<p>line two</p>\n"), nil
		},
		check: func() bool { return valid.Load() },
		times: liveTimes{coalesce: 100 * time.Millisecond, heartbeat: 30 * time.Millisecond, sessionCheck: 50 * time.Millisecond, retry: time.Second}}
	changes := make(chan struct{}, 1)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() { defer close(ended); s.run(context.Background(), done, changes) }()

	waitFor(t, "the first board", time.Second, func() bool { return renders.Load() == 1 })
	if got := out.String(); !strings.HasPrefix(got, "retry: 1000\n\nevent: board\ndata: <p>board x</p>\ndata: <p>line two</p>\n\n") {
		t.Errorf("stream starts %q", got)
	}
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond {
		select {
		case changes <- struct{}{}:
		default:
		}
		time.Sleep(5 * time.Millisecond)
	}
	burst := time.Since(start)
	waitFor(t, "the burst's last board", time.Second, func() bool { return time.Since(start) > burst+150*time.Millisecond })
	// 300 ms of changes every 5 ms, at most one render per 100 ms: 3 or 4
	// after the board sent on connecting (whether the render due at 300 ms
	// or the burst's end comes first at that instant is the scheduler's).
	if n := renders.Load() - 1; n < 3 || n > 4 {
		t.Errorf("a 300 ms burst rendered %d boards, want 3 or 4", n)
	}
	waitFor(t, "a heartbeat", time.Second, func() bool { return strings.Contains(out.String(), ": heartbeat\n\n") })

	valid.Store(false)
	select {
	case <-ended:
	case <-time.After(2 * time.Second):
		t.Fatal("the stream of an ended session did not end")
	}
	if !strings.HasSuffix(out.String(), "event: end\ndata: session ended\n\n") {
		t.Errorf("the stream ends %q, want event end", out.String()[max(0, len(out.String())-80):])
	}

	// The hub's end ends a stream.
	valid.Store(true)
	ended2 := make(chan struct{})
	go func() { defer close(ended2); s.run(context.Background(), done, changes) }()
	close(done)
	select {
	case <-ended2:
	case <-time.After(2 * time.Second):
		t.Fatal("a stream outlived its hub")
	}
}

// A board stream ends with event "end" once its session is over (here:
// the user's password changed, as when a user is removed), and the hub's
// end ends it too. Sessions are checked every 50 ms here, every minute in
// a server.
func TestLiveStreamEndsWithTheSession(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newHubWorld(t, db.URL)
		u, err := w.op.AddUser(t.Context(), operator.UserRequest{OrgID: w.org, Email: "tech@example.com", Role: workshop.RoleTechnician,
			Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		app, err := New(w.st, Config{})
		if err != nil {
			t.Fatal(err)
		}
		app.live.sessionCheck = 50 * time.Millisecond
		hubCtx, stopHub := context.WithCancel(context.Background())
		hubDone := make(chan struct{})
		go func() { defer close(hubDone); app.Run(hubCtx) }()
		defer func() { stopHub(); <-hubDone }()
		srv := httptest.NewServer(app.Handler())
		defer srv.Close()
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar}
		res, err := client.PostForm(srv.URL+"/login", url.Values{"email": {u.Email}, "password": {"correct horse battery"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()

		open := func() (*bufio.Reader, func()) {
			t.Helper()
			res, err := client.Get(srv.URL + "/locations/" + w.locA.ID + "/board/events")
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("open the stream: %v %v", res.StatusCode, err)
			}
			return bufio.NewReader(res.Body), func() { res.Body.Close() }
		}
		readUntil := func(r *bufio.Reader, want string) {
			t.Helper()
			done := make(chan string, 1)
			go func() {
				var seen strings.Builder
				for {
					line, err := r.ReadString('\n')
					seen.WriteString(line)
					if strings.Contains(seen.String(), want) || err != nil {
						done <- seen.String()
						return
					}
				}
			}()
			select {
			case got := <-done:
				if !strings.Contains(got, want) {
					t.Fatalf("the stream ended without %q: %q", want, got)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("no %q within 5 s", want)
			}
		}

		r, closeStream := open()
		defer closeStream()
		readUntil(r, "event: board\n")
		if _, err := w.op.SetPassword(t.Context(), u.ID, "another long password"); err != nil {
			t.Fatal(err)
		}
		readUntil(r, "event: end\ndata: session ended\n\n")
		if _, err := r.ReadString('\n'); err == nil {
			t.Error("the stream went on after its end")
		}
	})
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// An open board keeps its session alive: a wall display left open for a
// day is still signed in, though sessions end after 12 hours idle, as the
// stream's session checks refresh last_seen_at.
func TestLiveStreamKeepsTheSessionAlive(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		clk := &fakeClock{t: time.Now()}
		st := storetest.Open(t, db.URL, store.WithClock(clk.Now))
		op := operator.New(st)
		org, err := op.CreateOrg(t.Context(), "Wall Motors", workshop.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		loc, err := op.CreateLocation(t.Context(), org.ID, "Hall", "Europe/Berlin", "EUR")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.AddUser(t.Context(), operator.UserRequest{OrgID: org.ID, Email: "wall@example.com", Role: workshop.RoleAdvisor,
			Password: "correct horse battery"}); err != nil {
			t.Fatal(err)
		}
		app, err := New(st, Config{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		app.live.sessionCheck = 20 * time.Millisecond
		srv := httptest.NewServer(app.Handler())
		defer srv.Close()
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.PostForm(srv.URL+"/login", url.Values{"email": {"wall@example.com"}, "password": {"correct horse battery"}})
		if err != nil || res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign in: %v %v", res.StatusCode, err)
		}
		res.Body.Close()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/locations/"+loc.ID+"/board/events?display=wall", nil)
		stream, err := client.Do(req)
		if err != nil || stream.StatusCode != http.StatusOK {
			t.Fatalf("open the stream: %v %v", stream.StatusCode, err)
		}
		defer stream.Body.Close()
		go func() { _, _ = io.Copy(io.Discard, stream.Body) }()

		raw := storetest.RawDB(t, db.URL)
		lastSeen := func() int64 {
			var v int64
			if err := raw.QueryRowContext(t.Context(), `SELECT MAX(last_seen_at) FROM sessions`).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		for range 3 { // 3 x 8 h: a day, never 12 h without a check
			clk.Advance(8 * time.Hour)
			want := workshop.MicrosOf(clk.Now())
			waitFor(t, "the stream's check refreshed the session", 5*time.Second, func() bool { return lastSeen() == int64(want) })
		}
		res, err = client.Get(srv.URL + "/locations/" + loc.ID + "/board")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("a day later the board answers %d, want 200: the session ended while the wall was open", res.StatusCode)
		}
	})
}
