package webapp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The live board: GET /locations/{id}/board/events is a server-sent event
// stream of the board's body (event "board", the HTML live.js swaps in),
// sent when the stream opens and again after every change to the
// location the hub reports.

// liveTimes are a stream's intervals.
type liveTimes struct {
	coalesce     time.Duration // at most one render per this
	heartbeat    time.Duration // a comment, so that proxies keep the stream open
	sessionCheck time.Duration // the session is read again (and kept alive)
	retry        time.Duration // the browser's reconnection delay
}

var defaultLiveTimes = liveTimes{coalesce: 250 * time.Millisecond, heartbeat: 15 * time.Second,
	sessionCheck: time.Minute, retry: 2 * time.Second}

// Run watches the database for the live board until ctx ends; then every
// board stream ends, so that a server's shutdown does not wait for them.
// Without Run, boards render but do not update.
func (a *App) Run(ctx context.Context) { a.hub.Run(ctx) }

// boardEvents streams a location's board. The stream reads the session
// again every sessionCheck: a signed-out or removed user's stream ends
// with event "end" (live.js then reloads the page, which asks to sign
// in), and a wall display open all day keeps its session alive, as the
// read refreshes last_seen_at.
func (a *App) boardEvents(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	locID := r.PathValue("locationID")
	_, loc, err := a.boardLocation(r, si, locID)
	if err != nil {
		return err
	}
	if loc == nil {
		return errNoSuchPage
	}
	q := parseBoardQuery(r.URL.Query()) // the page's filters; the wall display's board: fewer jobs per status
	a.stream(w, r, si, locID, func(ctx context.Context) ([]byte, error) {
		d, err := a.boardData(ctx, si, loc, q)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		err = a.pages["board"].ExecuteTemplate(&b, "boardBody", d)
		return b.Bytes(), err
	})
	return nil
}

// stream answers with a live page's event stream (the board, a
// technician's work): the body render makes, sent when the stream opens
// and again after every change to the location the hub reports, until
// the session ends.
func (a *App) stream(w http.ResponseWriter, r *http.Request, si *store.SignedIn, locID string, render func(context.Context) ([]byte, error)) {
	sub, cancel := a.hub.subscribe(locID)
	defer cancel()
	ctx := r.Context()
	// check tells whether the session still holds; a failed read is
	// not an answer (the next check tries again).
	check := func() bool {
		now, err := a.store.Session(ctx, si.ID)
		if workshop.ErrorCode(err) == workshop.CodeNotFound {
			return false
		}
		return err != nil || now.UserID == si.UserID
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no") // a buffering proxy would hold the events back
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	s := &stream{w: w, flush: rc.Flush, render: func() ([]byte, error) { return render(ctx) }, check: check, times: a.live,
		warn: func(err error) {
			if ctx.Err() == nil { // not a browser gone mid-render
				a.log.WarnContext(ctx, "live board render", "location", locID, "path", r.URL.Path, "error", err)
			}
		}}
	s.run(ctx, a.hub.done, sub.c)
}

// stream is one open board stream.
type stream struct {
	w      io.Writer
	flush  func() error
	render func() ([]byte, error)
	check  func() bool
	warn   func(error)
	times  liveTimes
}

// run sends the board now and after changes (a burst of changes is one
// render, at most one per coalesce), a heartbeat, and ends when ctx or
// done does, a write fails, or the session is no longer valid.
func (s *stream) run(ctx context.Context, done <-chan struct{}, changes <-chan struct{}) {
	if !s.write("retry: " + strconv.Itoa(int(s.times.retry/time.Millisecond)) + "\n\n") {
		return
	}
	if !s.sendBoard() {
		return
	}
	last := time.Now()
	coalesce := time.NewTimer(time.Hour)
	coalesce.Stop()
	defer coalesce.Stop()
	pending := false
	heartbeat := time.NewTicker(s.times.heartbeat)
	defer heartbeat.Stop()
	check := time.NewTicker(s.times.sessionCheck)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-changes:
			if pending {
				continue
			}
			if wait := s.times.coalesce - time.Since(last); wait > 0 {
				pending = true
				coalesce.Reset(wait)
				continue
			}
			if !s.sendBoard() {
				return
			}
			last = time.Now()
		case <-coalesce.C:
			pending = false
			if !s.sendBoard() {
				return
			}
			last = time.Now()
		case <-heartbeat.C:
			if !s.write(": heartbeat\n\n") {
				return
			}
		case <-check.C:
			if !s.check() {
				s.write("event: end\ndata: session ended\n\n")
				return
			}
		}
	}
}

// sendBoard renders the board and sends it as event "board"; a failed
// render is logged and skipped (the next change renders again). It tells
// whether the stream is still open.
func (s *stream) sendBoard() bool {
	body, err := s.render()
	if err != nil {
		s.warn(err)
		return true
	}
	var b bytes.Buffer
	b.WriteString("event: board\n")
	for line := range bytes.Lines(body) {
		b.WriteString("data: ")
		// A CR would end the event's line early: none is sent.
		b.Write(bytes.ReplaceAll(bytes.TrimRight(line, "\r\n"), []byte("\r"), nil))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return s.write(b.String())
}

func (s *stream) write(text string) bool {
	if _, err := io.WriteString(s.w, text); err != nil {
		return false
	}
	return s.flush() == nil
}
