package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// dEnv is a store with an organisation and a location, and a receiver.
type dEnv struct {
	t   *testing.T
	db  storetest.Database
	st  *store.Store
	org workshop.Org
	loc workshop.Location
	rcv *webhookstest.Receiver
}

func newDEnv(t *testing.T, db storetest.Database) *dEnv {
	t.Helper()
	st := storetest.Open(t, db.URL)
	now := workshop.MicrosOf(time.Now())
	org, err := st.CreateOrg(t.Context(), workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Hook Motors", PlanTier: workshop.PlanPro,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := st.CreateLocation(t.Context(), workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: org.ID, Name: "Hamburg",
		Timezone: "Europe/Berlin", CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now}, workshop.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	rcv, err := webhookstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rcv.Close)
	return &dEnv{t: t, db: db, st: st, org: org, loc: loc, rcv: rcv}
}

// hook registers the receiver's path for job.created.
func (e *dEnv) hook(path string) workshop.Webhook {
	return e.hookURL(e.rcv.URL + path)
}

func (e *dEnv) hookURL(url string) workshop.Webhook {
	e.t.Helper()
	now := workshop.MicrosOf(time.Now())
	w, err := e.st.CreateWebhook(e.t.Context(), workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: e.org.ID, URL: url,
		Events: []string{workshop.EventJobCreated}, SigningSecret: workshop.NewSigningSecret(), IsActive: true, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// jobs creates n jobs (n job.created events) and returns their ids.
func (e *dEnv) jobs(st *store.Store, n int) []string {
	e.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		now := workshop.MicrosOf(time.Now())
		res, err := st.CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: e.org.ID, LocationID: e.loc.ID,
			Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
		if err != nil {
			e.t.Errorf("CreateJob: %v", err)
			return ids
		}
		ids[i] = res.Job.ID
	}
	return ids
}

// start runs a dispatcher on st until the test ends or stop is called.
func (e *dEnv) start(st *store.Store, cfg webhooks.Config) (stop func()) {
	if cfg.Guard == nil {
		cfg.Guard = &webhooks.Guard{AllowInsecure: true}
	}
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(e.t.Output(), nil))
	}
	d := webhooks.New(st, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	e.t.Cleanup(stop)
	return stop
}

func (e *dEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// waitDelivery waits until the registration's only delivery satisfies ok.
func (e *dEnv) waitDelivery(ctx context.Context, hookID string, ok func(workshop.Delivery) bool) workshop.Delivery {
	e.t.Helper()
	for {
		page, err := e.st.Deliveries(ctx, store.Visibility{OrgID: e.org.ID}, hookID, workshop.PageRequest{Limit: 10})
		if err != nil && ctx.Err() == nil {
			e.t.Fatal(err)
		}
		if len(page.Data) == 1 && ok(page.Data[0]) {
			return page.Data[0]
		}
		select {
		case <-ctx.Done():
			e.t.Fatalf("the delivery of %s never got there: %+v", hookID, page.Data)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// everyJobSucceeded is a wait condition: a 2xx answered for each job.
func everyJobSucceeded(jobIDs []string) func([]*webhookstest.Hit) bool {
	return func(hs []*webhookstest.Hit) bool {
		ok := map[string]bool{}
		for _, h := range hs {
			if h.Event == workshop.EventJobCreated && h.Status >= 200 && h.Status < 300 {
				ok[h.DataID] = true
			}
		}
		for _, id := range jobIDs {
			if !ok[id] {
				return false
			}
		}
		return true
	}
}

// TestDeliverySignedBothWays: the body is the event (data as stored, byte
// for byte), signed with X-Service-Signature and the Standard Webhooks
// headers, both verified here from their definitions.
func TestDeliverySignedBothWays(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		h := e.hook("/signed")
		reg := prometheus.NewRegistry()
		e.start(e.st, webhooks.Config{Registry: reg})
		jobID := e.jobs(e.st, 1)[0]
		hit, err := e.rcv.WaitFor(e.ctx(), "/signed", workshop.EventJobCreated, jobID)
		if err != nil {
			t.Fatal(err)
		}

		mac := hmac.New(sha256.New, []byte(h.SigningSecret))
		mac.Write(hit.Body)
		if got, want := hit.Header.Get("X-Service-Signature"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
			t.Errorf("X-Service-Signature: got %q, want %q", got, want)
		}
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h.SigningSecret, "whsec_"))
		ts := hit.Header.Get("Webhook-Timestamp")
		if sec, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(sec, 0)).Abs() > time.Minute {
			t.Errorf("webhook-timestamp %q: want the unix time of the attempt", ts)
		}
		std := hmac.New(sha256.New, key)
		std.Write([]byte(hit.Delivery + "." + ts + "." + string(hit.Body)))
		if got, want := hit.Header.Get("Webhook-Signature"), "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)); got != want {
			t.Errorf("webhook-signature: got %q, want %q", got, want)
		}
		if got := hit.Header.Get("Webhook-Id"); got != hit.Delivery || !strings.HasPrefix(got, "dlv_") {
			t.Errorf("webhook-id %q, X-Service-Delivery %q: want the same dlv_ id", got, hit.Delivery)
		}
		for k, want := range map[string]string{"Content-Type": "application/json", "X-Service-Event": "job.created", "X-Service-Attempt": "1"} {
			if got := hit.Header.Get(k); got != want {
				t.Errorf("%s: got %q, want %q", k, got, want)
			}
		}

		events, err := e.st.EventsAfter(t.Context(), 0, 10)
		if err != nil || len(events) != 1 {
			t.Fatalf("events: %v, %v", events, err)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(hit.Body, &body); err != nil {
			t.Fatal(err)
		}
		if got, want := string(body["data"]), string(events[0].Data); got != want {
			t.Errorf("data: got %s, want the stored row %s", got, want)
		}
		if string(body["id"]) != strconv.Quote(events[0].ID) || string(body["event"]) != `"job.created"` ||
			string(body["occurredAt"]) != strconv.Quote(events[0].OccurredAt.String()) || len(body) != 4 {
			t.Errorf("body %s: want id, event, occurredAt of the event and data", hit.Body)
		}
		d := e.waitDelivery(e.ctx(), h.ID, func(d workshop.Delivery) bool { return d.Status == workshop.DeliverySucceeded })
		if d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.NextAttemptAt != nil {
			t.Errorf("delivery %+v: want succeeded at the first attempt with 200", d)
		}
		if got := gathered(t, reg, "workshop_webhook_attempts_total", "success"); got < 1 {
			t.Errorf("workshop_webhook_attempts_total{outcome=success} = %v, want >= 1", got)
		}
		for _, name := range []string{"workshop_webhook_deliveries_pending", "workshop_webhook_oldest_pending_age_seconds"} {
			if got := gathered(t, reg, name, ""); got != 0 {
				t.Errorf("%s = %v, want 0 (nothing left)", name, got)
			}
		}
		if got := gathered(t, reg, "workshop_webhook_delivery_latency_seconds", ""); got < 1 {
			t.Errorf("latency histogram count = %v, want >= 1", got)
		}
	})
}

// gathered is a metric's value (a counter with the label value outcome, a
// gauge, or a histogram's count).
func gathered(t *testing.T, reg *prometheus.Registry, name, outcome string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if outcome != "" && (len(m.GetLabel()) == 0 || m.GetLabel()[0].GetValue() != outcome) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return -1
}

// TestReceiverDownThenBack: an endpoint failing for a while gets every
// event once it is back.
func TestReceiverDownThenBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		e.hook("/down")
		var mu sync.Mutex
		down := true
		e.rcv.Set("/down", func(*webhookstest.Hit) webhookstest.Answer {
			mu.Lock()
			defer mu.Unlock()
			if down {
				return webhookstest.Answer{Status: 503}
			}
			return webhookstest.Answer{Status: 200}
		})
		delays := make([]time.Duration, 20)
		for i := range delays {
			delays[i] = 20 * time.Millisecond
		}
		e.start(e.st, webhooks.Config{RetryDelays: delays})
		jobs := e.jobs(e.st, 12)
		ctx := e.ctx()
		if _, err := e.rcv.Wait(ctx, "/down", func(hs []*webhookstest.Hit) bool { return len(hs) >= 24 }); err != nil {
			t.Fatal(err) // every event failed at least once (on average)
		}
		mu.Lock()
		down = false
		mu.Unlock()
		hits, err := e.rcv.Wait(ctx, "/down", everyJobSucceeded(jobs))
		if err != nil {
			t.Fatal(err)
		}
		retried := false
		for _, h := range hits {
			retried = retried || h.Attempt > 1
		}
		if !retried {
			t.Error("no attempt after the first: the failures were not retried")
		}
	})
}

// TestSlowEndpointDoesNotDelayOthers: while a registration's endpoint holds
// every request, another's gets all its deliveries.
func TestSlowEndpointDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		release := make(chan struct{})
		e.rcv.Set("/slow", func(*webhookstest.Hit) webhookstest.Answer { return webhookstest.Answer{Status: 200, Block: release} })
		e.hook("/slow")
		e.hook("/fast")
		e.start(e.st, webhooks.Config{Workers: 8, PerWebhook: 4})
		jobs := e.jobs(e.st, 30)
		ctx := e.ctx()
		if _, err := e.rcv.Wait(ctx, "/fast", everyJobSucceeded(jobs)); err != nil {
			t.Fatal(err)
		}
		if n := e.rcv.Received("/slow"); n > 4 {
			t.Errorf("the slow endpoint has %d requests in flight, want at most 4 (PerWebhook)", n)
		}
		if n := len(e.rcv.Hits("/slow")); n != 0 {
			t.Errorf("the slow endpoint answered %d requests while held, want 0", n)
		}
		close(release)
		if _, err := e.rcv.Wait(ctx, "/slow", everyJobSucceeded(jobs)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTimeoutAndRedirectAreFailures: no answer within the timeout, and a
// 3xx (not followed), fail the attempt.
func TestTimeoutAndRedirectAreFailures(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		never := make(chan struct{})
		t.Cleanup(func() { close(never) })
		e.rcv.Set("/hang", func(*webhookstest.Hit) webhookstest.Answer { return webhookstest.Answer{Status: 200, Block: never} })
		e.rcv.Set("/redirect", func(*webhookstest.Hit) webhookstest.Answer {
			return webhookstest.Answer{Status: 302, Header: http.Header{"Location": {e.rcv.URL + "/target"}}}
		})
		hang, redirect := e.hook("/hang"), e.hook("/redirect")
		reg := prometheus.NewRegistry()
		e.start(e.st, webhooks.Config{Timeout: 100 * time.Millisecond, RetryDelays: []time.Duration{time.Hour}, Registry: reg})
		e.jobs(e.st, 1)
		ctx := e.ctx()
		d := e.waitDelivery(ctx, hang.ID, func(d workshop.Delivery) bool { return d.Attempts == 1 && d.Status != workshop.DeliveryPending })
		if d.Status != workshop.DeliveryFailed || d.LastStatusCode != nil || d.LastError == nil || !strings.Contains(*d.LastError, "no answer within") {
			t.Errorf("timed out delivery %+v: want failed, no status code, error no answer within", d)
		}
		d = e.waitDelivery(ctx, redirect.ID, func(d workshop.Delivery) bool { return d.Attempts == 1 && d.Status != workshop.DeliveryPending })
		if d.Status != workshop.DeliveryFailed || d.LastStatusCode == nil || *d.LastStatusCode != 302 || d.LastError == nil {
			t.Errorf("redirected delivery %+v: want failed with 302", d)
		}
		if n := e.rcv.Received("/target"); n != 0 {
			t.Errorf("the redirect was followed: %d requests on its target", n)
		}
		for _, outcome := range []string{"timeout", "redirect"} {
			if got := gathered(t, reg, "workshop_webhook_attempts_total", outcome); got != 1 {
				t.Errorf("attempts{outcome=%s} = %v, want 1", outcome, got)
			}
		}
		if got := gathered(t, reg, "workshop_webhook_deliveries_pending", ""); got != 2 {
			t.Errorf("pending deliveries = %v, want 2 (failed, retried in an hour)", got)
		}
	})
}

// TestStrictGuardRefusesAtDelivery: a registration naming a loopback
// address (stored past the registration check) is refused when dialled.
func TestStrictGuardRefusesAtDelivery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("the loopback endpoint was called: %s", r.URL)
		}))
		t.Cleanup(tls.Close)
		h := e.hookURL(tls.URL + "/hook")
		e.start(e.st, webhooks.Config{Guard: &webhooks.Guard{}, RetryDelays: []time.Duration{time.Hour}})
		e.jobs(e.st, 1)
		d := e.waitDelivery(e.ctx(), h.ID, func(d workshop.Delivery) bool { return d.Attempts == 1 && d.Status != workshop.DeliveryPending })
		if d.Status != workshop.DeliveryFailed || d.LastError == nil || !strings.Contains(*d.LastError, "loopback") {
			t.Errorf("delivery %+v: want failed, refused as loopback", d)
		}
	})
}

// TestCrashMidAttempt: a dispatcher stopped while its attempts are in
// flight (the receiver holding them) loses nothing: another dispatcher
// delivers every event once the leases run out.
func TestCrashMidAttempt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		var mu sync.Mutex
		crashed := false
		hold := make(chan struct{})
		t.Cleanup(func() { close(hold) })
		e.rcv.Set("/crash", func(*webhookstest.Hit) webhookstest.Answer {
			mu.Lock()
			defer mu.Unlock()
			if !crashed {
				return webhookstest.Answer{Status: 200, Block: hold}
			}
			return webhookstest.Answer{Status: 200}
		})
		e.hook("/crash")
		jobs := e.jobs(e.st, 10)
		cfg := webhooks.Config{Timeout: time.Second, Lease: 300 * time.Millisecond, PerWebhook: 4}
		stop := e.start(e.st, cfg)
		ctx := e.ctx()
		for e.rcv.Received("/crash") < 4 { // PerWebhook attempts in flight, held
			select {
			case <-ctx.Done():
				t.Fatalf("the first dispatcher made %d attempts, want 4", e.rcv.Received("/crash"))
			case <-time.After(5 * time.Millisecond):
			}
		}
		stop() // the crash: attempts abandoned, nothing recorded
		mu.Lock()
		crashed = true
		mu.Unlock()
		second := storetest.Open(t, db.URL)
		e.start(second, cfg)
		hits, err := e.rcv.Wait(ctx, "/crash", everyJobSucceeded(jobs))
		if err != nil {
			t.Fatal(err)
		}
		again := 0
		for _, h := range hits {
			if h.Attempt > 1 {
				again++
			}
		}
		if again < 4 {
			t.Errorf("%d deliveries attempted again, want the 4 abandoned ones at least", again)
		}
	})
}

// TestTwoDispatchersUnderLoad: two dispatchers (processes) on one database,
// events written while they run, some first attempts failing: every
// delivery arrives, and no attempt (delivery, attempt number) is made twice.
func TestTwoDispatchersUnderLoad(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newDEnv(t, db)
		// A tenth of the first attempts fail: their retries are claimed too.
		fails := func(h *webhookstest.Hit) webhookstest.Answer {
			f := fnv.New32a()
			f.Write([]byte(h.Delivery))
			if h.Attempt == 1 && f.Sum32()%10 == 0 {
				return webhookstest.Answer{Status: 500}
			}
			return webhookstest.Answer{Status: 200}
		}
		for _, path := range []string{"/a", "/b", "/c"} {
			e.hook(path)
			e.rcv.Set(path, fails)
		}
		stores := []*store.Store{storetest.Open(t, db.URL), storetest.Open(t, db.URL)}
		for _, st := range stores {
			e.start(st, webhooks.Config{Workers: 16})
		}
		var writers sync.WaitGroup
		jobs := make([][]string, 4)
		for w := range jobs {
			writers.Go(func() { jobs[w] = e.jobs(stores[w%2], 40) })
		}
		writers.Wait()
		var all []string
		for _, j := range jobs {
			all = append(all, j...)
		}
		ctx := e.ctx()
		seen := map[string]int{} // delivery#attempt -> requests
		retried := false
		for _, path := range []string{"/a", "/b", "/c"} {
			hits, err := e.rcv.Wait(ctx, path, everyJobSucceeded(all))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				seen[h.Delivery+"#"+strconv.Itoa(h.Attempt)]++
				retried = retried || h.Attempt > 1
			}
		}
		for k, n := range seen {
			if n > 1 {
				t.Errorf("attempt %s made %d times, want once", k, n)
			}
		}
		if len(seen) < len(all)*3 {
			t.Errorf("%d attempts, want at least %d", len(seen), len(all)*3)
		}
		if !retried {
			t.Error("no failed first attempt was retried")
		}
	})
}
