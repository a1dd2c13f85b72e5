package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The promise watch scenario times each turn to the receiver: from the
// answer to the change's write to the arrival of its job.at_risk delivery
// at a webhook endpoint, through the outbox, the fan-out and a serve
// process's dispatcher, as a dealer group's integration sees it.

// PortRange is where the bench's servers listen: the serve processes and
// the webhook receiver take its ports in turn (zero: any free port).
type PortRange struct{ Low, High int }

// ParsePortRange reads LOW-HIGH ("" is the zero range).
func ParsePortRange(s string) (PortRange, error) {
	if s == "" {
		return PortRange{}, nil
	}
	lo, hi, ok := strings.Cut(s, "-")
	l, err1 := strconv.Atoi(lo)
	h, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || l < 1 || h > 65535 || l > h {
		return PortRange{}, fmt.Errorf("ports %q: want LOW-HIGH, such as 18000-18099", s)
	}
	return PortRange{Low: l, High: h}, nil
}

// ports hands out the range's ports in turn.
type ports struct {
	mu   sync.Mutex
	r    PortRange
	next int
}

// addr is the next listen address: a port of the range, or any.
func (p *ports) addr() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.r.Low == 0 {
		return "127.0.0.1:0", nil
	}
	for p.next <= p.r.High-p.r.Low {
		port := p.r.Low + p.next
		p.next++
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil { // free now
			_ = ln.Close()
			return "127.0.0.1:" + strconv.Itoa(port), nil
		}
	}
	return "", fmt.Errorf("no free port left in %d-%d", p.r.Low, p.r.High)
}

// arrival is a job.at_risk delivery's first arrival at the receiver.
type arrival struct {
	at       time.Time
	delivery string
	attempts int // arrivals of the job's at_risk deliveries (an attempt made again counts)
}

// riskReceiver records the job.at_risk deliveries by job.
type riskReceiver struct {
	url string
	mu  sync.Mutex
	// byJob: the first arrival of each job's at_risk delivery; deliveries:
	// the deliveries seen per event id (more than one is a duplicate).
	byJob      map[string]*arrival
	deliveries map[string]map[string]bool
	events     map[string]map[string]bool // per job: its at_risk event ids
	stop       func()
}

func startRiskReceiver(p *ports) (*riskReceiver, error) {
	r := &riskReceiver{byJob: map[string]*arrival{}, deliveries: map[string]map[string]bool{}, events: map[string]map[string]bool{}}
	addr, err := p.addr()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	r.url = "http://" + ln.Addr().String() + "/risk"
	r.stop = func() { _ = srv.Close() }
	return r, nil
}

func (r *riskReceiver) serve(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var ev struct {
		ID    string `json:"id"`
		Event string `json:"event"`
		Data  struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err != nil || json.Unmarshal(body, &ev) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	if ev.Event != workshop.EventJobAtRisk {
		return
	}
	delivery := req.Header.Get("X-Service-Delivery")
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deliveries[ev.ID] == nil {
		r.deliveries[ev.ID] = map[string]bool{}
	}
	r.deliveries[ev.ID][delivery] = true
	if r.events[ev.Data.ID] == nil {
		r.events[ev.Data.ID] = map[string]bool{}
	}
	r.events[ev.Data.ID][ev.ID] = true
	a := r.byJob[ev.Data.ID]
	if a == nil {
		a = &arrival{at: at, delivery: delivery}
		r.byJob[ev.Data.ID] = a
	}
	a.attempts++
}

// arrived is the job's first at_risk arrival, if any.
func (r *riskReceiver) arrived(job string) (arrival, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byJob[job]
	if !ok {
		return arrival{}, false
	}
	return *a, true
}

// duplicates counts, for the jobs, the events delivered as more than one
// delivery and the turns told more than once (several at_risk events).
func (r *riskReceiver) duplicates(jobs []string) (deliveries, turns int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range jobs {
		turns += max(0, len(r.events[j])-1)
		for ev := range r.events[j] {
			deliveries += len(r.deliveries[ev]) - 1
		}
	}
	return deliveries, turns
}

// registerRiskHook registers the receiver for every location's
// job.at_risk.
func registerRiskHook(ctx context.Context, st *store.Store, orgID, url string) error {
	now := workshop.MicrosOf(time.Now())
	_, err := st.CreateWebhook(ctx, workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: orgID, URL: url,
		Events: []string{workshop.EventJobAtRisk}, SigningSecret: workshop.NewSigningSecret(), IsActive: true, CreatedAt: now, UpdatedAt: now})
	return err
}
