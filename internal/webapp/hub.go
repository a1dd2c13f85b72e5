package webapp

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
)

// The hub is the one change watcher of a process: it tells the board
// streams open on this process that a location changed, whichever process
// or command changed it. Browsers never poll the database: one watcher
// does, for all of them.
//
//   - It tails the event outbox from the last seq it saw. A write of this
//     process wakes it at once (store.OnEventsCommitted); another
//     process's writes are found by a tick (hubTick).
//   - On the tick it also reads the plan versions of the locations someone
//     watches (one query). Triggers move them with every write to a
//     location's jobs, steps, technicians, bays, catalog and settings,
//     including the writes that record no event (`workshop admin
//     technician create`, a bay deleted).
//   - On PostgreSQL an outbox seq is taken at insert, not at commit, so an
//     event may appear below the last seq seen: the tail re-reads a window
//     of recent seqs (hubWindow) and tells only those not seen yet; the
//     plan versions cover anything older.
type hub struct {
	st   *store.Store
	log  *slog.Logger
	tick time.Duration

	wake chan struct{} // buffered 1: a commit of this process recorded events
	done chan struct{} // closed when Run ends: every stream ends

	mu   sync.Mutex
	subs map[string]map[*subscription]struct{} // by location id

	// The watcher's own state (Run's goroutine only).
	seq      int64
	haveSeq  bool
	toldTo   int64              // seqs up to here came while no board was open: never told
	seen     map[int64]struct{} // seqs in (seq-hubWindow, seq] already told
	versions map[string]int64
}

const (
	hubTick   = time.Second // cross-process changes show within this, plus a render
	hubWindow = 100         // outbox seqs re-read for late commits (PostgreSQL)
	hubPage   = 500         // outbox marks read at once
)

// subscription is one stream's interest in a location. c holds at most
// one signal: changes made while the stream renders are one more render,
// however many they were.
type subscription struct {
	loc string
	c   chan struct{}
}

func newHub(st *store.Store, log *slog.Logger) *hub {
	return &hub{st: st, log: log, tick: hubTick, wake: make(chan struct{}, 1), done: make(chan struct{}),
		subs: map[string]map[*subscription]struct{}{}, seen: map[int64]struct{}{}, versions: map[string]int64{}}
}

// subscribe asks to be told of changes to a location until cancel.
func (h *hub) subscribe(locationID string) (*subscription, func()) {
	s := &subscription{loc: locationID, c: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[locationID] == nil {
		h.subs[locationID] = map[*subscription]struct{}{}
	}
	h.subs[locationID][s] = struct{}{}
	return s, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs[locationID], s)
		if len(h.subs[locationID]) == 0 {
			delete(h.subs, locationID)
		}
	}
}

// notify tells the location's subscribers, never waiting for one.
func (h *hub) notify(locationID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[locationID] {
		select {
		case s.c <- struct{}{}:
		default:
		}
	}
}

// watched lists the locations with a subscriber.
func (h *hub) watched() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.subs))
	for loc := range h.subs {
		out = append(out, loc)
	}
	slices.Sort(out)
	return out
}

// Run watches until ctx ends, then closes done, which ends every stream.
func (h *hub) Run(ctx context.Context) {
	defer close(h.done)
	stop := h.st.OnEventsCommitted(func() {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	})
	defer stop()
	t := time.NewTicker(h.tick)
	defer t.Stop()
	h.tail(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
			h.tail(ctx)
		case <-t.C:
			h.tail(ctx)
			h.pollVersions(ctx)
		}
	}
}

// tail reads the outbox past what it has seen and tells each location
// with a new event once; it returns the locations it told.
func (h *hub) tail(ctx context.Context) map[string]bool {
	if !h.haveSeq || len(h.watched()) == 0 {
		// Start at the end (what came before is on the pages already), and
		// stay there while no board is open here: one indexed read, not a
		// window of rows, on every commit. A board opening later is told
		// of what comes after.
		seq, err := h.st.LastEventSeq(ctx)
		if err != nil {
			h.warn(ctx, "read the outbox's last seq", err)
			return nil
		}
		h.seq, h.haveSeq, h.toldTo = seq, true, seq
		return nil
	}
	changed := map[string]bool{}
	from := max(0, h.seq-hubWindow)
	for {
		marks, err := h.st.EventMarksAfter(ctx, from, hubPage)
		if err != nil {
			h.warn(ctx, "tail the outbox", err)
			break
		}
		for _, m := range marks {
			if _, ok := h.seen[m.Seq]; ok {
				continue
			}
			h.seen[m.Seq] = struct{}{}
			if m.Seq <= h.toldTo {
				continue // before any board was open: nothing to tell
			}
			changed[m.LocationID] = true
			h.seq = max(h.seq, m.Seq)
		}
		if len(marks) < hubPage {
			break
		}
		from = marks[len(marks)-1].Seq
	}
	for seq := range h.seen {
		if seq <= h.seq-hubWindow {
			delete(h.seen, seq)
		}
	}
	h.refreshVersions(ctx, changed)
	for loc := range changed {
		h.notify(loc)
	}
	return changed
}

// pollVersions reads the plan versions of the watched locations and tells
// those that moved. A location watched for the first time is told too: its
// stream may have rendered just before the version was read. A version
// may have moved with a write whose event committed after the tick's tail
// read the outbox: the outbox is read again first, and a location its
// events tell is not told a second time for the same write.
func (h *hub) pollVersions(ctx context.Context) {
	locs := h.watched()
	for loc := range h.versions {
		if _, ok := slices.BinarySearch(locs, loc); !ok {
			delete(h.versions, loc)
		}
	}
	if len(locs) == 0 {
		return
	}
	vs, err := h.st.PlanVersions(ctx, locs)
	if err != nil {
		h.warn(ctx, "read plan versions", err)
		return
	}
	var moved []string
	for loc, v := range vs {
		if old, ok := h.versions[loc]; !ok || old != v {
			h.versions[loc] = v
			moved = append(moved, loc)
		}
	}
	if len(moved) == 0 {
		return
	}
	told := h.tail(ctx)
	for _, loc := range moved {
		if !told[loc] {
			h.notify(loc)
		}
	}
}

// refreshVersions reads the plan versions of the changed locations that
// are watched before their streams are told, so that the tick does not
// tell them of the same change again. A write without an event that
// committed meanwhile is absorbed safely: the streams render after this.
func (h *hub) refreshVersions(ctx context.Context, changed map[string]bool) {
	var locs []string
	for loc := range changed {
		if _, ok := h.versions[loc]; ok {
			locs = append(locs, loc)
		}
	}
	if len(locs) == 0 {
		return
	}
	vs, err := h.st.PlanVersions(ctx, locs)
	if err != nil {
		return // the tick reads them; at worst a board renders twice
	}
	for loc, v := range vs {
		h.versions[loc] = v
	}
}

func (h *hub) warn(ctx context.Context, what string, err error) {
	if ctx.Err() == nil {
		h.log.WarnContext(ctx, "live board watcher: "+what, "error", err)
	}
}
