package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// idempotentCreate is a POST that TestIdempotency repeats: its body, a
// body that fails validation (field refused), another valid body, and the
// list of what it creates.
type idempotentCreate struct {
	path, body, refused, field, other string
	list                              string
}

// listCount is how many items the first page (up to 200) of a list has.
func listCount(t *testing.T, base, key, list string) int {
	t.Helper()
	r := apitest.Call(t, base, apitest.Request{Method: "GET", Path: list + "?limit=200", Key: key})
	if r.Status != 200 {
		t.Fatalf("GET %s: got %d; body %s", list, r.Status, r.Body)
	}
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	r.Decode(t, &page)
	return len(page.Data)
}

// TestIdempotency runs the Idempotency-Key rules on an operation whose key
// is looked up before it runs (create an integration) and on one whose key
// is looked up after it ran (create a job, see httpapi's keyInWrite).
func TestIdempotency(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		srv := startServer(t, db.URL)
		post := func(t *testing.T, key, path, idem, body string) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: path, Key: key,
				Body: body, Header: http.Header{"Idempotency-Key": {idem}}})
		}
		for name, c := range map[string]func(o *testOrg) idempotentCreate{
			"integration": func(*testOrg) idempotentCreate {
				return idempotentCreate{path: "/v1/platform/integrations", body: `{"name":"Autoline DMS","systemType":"dms"}`,
					refused: `{"name":"x","systemType":"bogus"}`, field: "systemType", other: `{"name":"Another","systemType":"erp"}`,
					list: "/v1/platform/integrations"}
			},
			"job": func(o *testOrg) idempotentCreate {
				job := func(plate, priority string) string {
					return fmt.Sprintf(`{"locationId":%q,"vehiclePlate":%q,"priority":%q}`, o.Locations[0].ID, plate, priority)
				}
				return idempotentCreate{path: "/v1/scheduler/jobs", body: job("B-AB 1", "normal"), refused: job("B-AB 1", "bogus"),
					field: "priority", other: job("B-CD 2", "normal"), list: "/v1/scheduler/jobs"}
			},
		} {
			t.Run(name, func(t *testing.T) {
				t.Run("a repeat is replayed", func(t *testing.T) {
					o := w.org("Replay "+name, workshop.PlanPro, 1)
					c := c(o)
					first := post(t, o.Key.Key, c.path, "create-1", c.body)
					if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
						t.Fatalf("first: got %d, Idempotent-Replayed %q; want 201 without it; body %s", first.Status, first.Header.Get("Idempotent-Replayed"), first.Body)
					}
					again := post(t, o.Key.Key, c.path, "create-1", c.body)
					if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" {
						t.Errorf("repeat: got %d, Idempotent-Replayed %q; want 201, true", again.Status, again.Header.Get("Idempotent-Replayed"))
					}
					if !bytes.Equal(again.Body, first.Body) {
						t.Errorf("repeat body:\n got %s\nwant %s", again.Body, first.Body)
					}
					if again.Header.Get("X-Request-Id") == first.Header.Get("X-Request-Id") {
						t.Errorf("a replay has its own request id; both are %s", first.Header.Get("X-Request-Id"))
					}
					if n := listCount(t, srv.URL, o.Key.Key, c.list); n != 1 {
						t.Errorf("created: got %d, want 1", n)
					}
				})
				t.Run("the key with another body is idempotency_key_reused", func(t *testing.T) {
					o := w.org("Reuse "+name, workshop.PlanPro, 1)
					c := c(o)
					if r := post(t, o.Key.Key, c.path, "create-1", c.body); r.Status != 201 {
						t.Fatalf("first: got %d; body %s", r.Status, r.Body)
					}
					wantProblem(t, post(t, o.Key.Key, c.path, "create-1", c.other), 422, "idempotency_key_reused", "")
					if n := listCount(t, srv.URL, o.Key.Key, c.list); n != 1 {
						t.Errorf("created: got %d, want 1", n)
					}
				})
				t.Run("a refused request does not use the key up", func(t *testing.T) {
					o := w.org("Refused "+name, workshop.PlanPro, 1)
					c := c(o)
					wantProblem(t, post(t, o.Key.Key, c.path, "create-1", c.refused), 422, "validation_failed", c.field)
					if r := post(t, o.Key.Key, c.path, "create-1", c.body); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" {
						t.Errorf("after a refusal: got %d, Idempotent-Replayed %q; want a fresh 201", r.Status, r.Header.Get("Idempotent-Replayed"))
					}
				})
				t.Run("keys are per organisation", func(t *testing.T) {
					a, b := w.org("Org A "+name, workshop.PlanPro, 1), w.org("Org B "+name, workshop.PlanPro, 1)
					ra, rb := post(t, a.Key.Key, c(a).path, "shared-key", c(a).body), post(t, b.Key.Key, c(b).path, "shared-key", c(b).body)
					if ra.Status != 201 || rb.Status != 201 || rb.Header.Get("Idempotent-Replayed") != "" {
						t.Fatalf("got %d and %d (replayed %q), want two fresh 201s", ra.Status, rb.Status, rb.Header.Get("Idempotent-Replayed"))
					}
					var ia, ib struct {
						ID string `json:"id"`
					}
					ra.Decode(t, &ia)
					rb.Decode(t, &ib)
					if ia.ID == ib.ID {
						t.Errorf("both organisations got %s", ia.ID)
					}
					if na, nb := listCount(t, srv.URL, a.Key.Key, c(a).list), listCount(t, srv.URL, b.Key.Key, c(b).list); na != 1 || nb != 1 {
						t.Errorf("created: got %d and %d, want 1 each", na, nb)
					}
				})
				t.Run("concurrent repeats create once", func(t *testing.T) {
					o := w.org("Concurrent "+name, workshop.PlanPro, 1)
					c := c(o)
					const n = 10
					var wg sync.WaitGroup
					resps := make([]*apitest.Response, n)
					errs := make([]error, n)
					start := make(chan struct{})
					for i := range n {
						wg.Go(func() {
							<-start
							resps[i], errs[i] = apitest.Send(t, srv.URL, apitest.Request{Method: "POST", Path: c.path,
								Key: o.Key.Key, Body: c.body, Header: http.Header{"Idempotency-Key": {"race"}}})
						})
					}
					close(start)
					wg.Wait()
					var created []byte
					for i, r := range resps {
						if errs[i] != nil {
							t.Errorf("request %d: %v", i, errs[i])
							continue
						}
						switch {
						case r.Status == 201:
							if created != nil && !bytes.Equal(created, r.Body) {
								t.Errorf("request %d: 201 body differs:\n got %s\nwant %s", i, r.Body, created)
							}
							created = r.Body
						case r.Status == 409 && r.Problem().Code == "idempotency_in_progress":
						default:
							t.Errorf("request %d: got %d %s, want 201 or 409 idempotency_in_progress", i, r.Status, r.Body)
						}
					}
					if n := listCount(t, srv.URL, o.Key.Key, c.list); n != 1 {
						t.Errorf("created: got %d, want exactly 1", n)
					}
				})
			})
		}
		// Looked up after the operation ran, the key still wins over what
		// running it again would answer now.
		t.Run("a repeat that would now fail is replayed", func(t *testing.T) {
			o := w.org("Replay after a change", workshop.PlanPro, 1)
			job := w.job(o.ID, o.Locations[0].ID)
			steps := "/v1/scheduler/jobs/" + job.ID + "/steps"
			first := post(t, o.Key.Key, steps, "step-1", `{"label":"Oil change","estimatedDuration":30}`)
			if first.Status != 201 {
				t.Fatalf("first: got %d; body %s", first.Status, first.Body)
			}
			cancelled := post(t, o.Key.Key, "/v1/scheduler/jobs/"+job.ID+"/cancel", "cancel-1", `{"reasonTags":["customer_declined"]}`)
			if cancelled.Status != 200 {
				t.Fatalf("cancel: got %d; body %s", cancelled.Status, cancelled.Body)
			}
			// Contract section 4: the job says when and why it was cancelled.
			var cj struct {
				CancelledAt, DeliveredAt *string
				CancelReasonTags         []string
			}
			if err := json.Unmarshal(cancelled.Body, &cj); err != nil || cj.CancelledAt == nil || cj.DeliveredAt != nil ||
				len(cj.CancelReasonTags) != 1 || cj.CancelReasonTags[0] != "customer_declined" {
				t.Errorf("cancelled job: %s; want cancelledAt set, deliveredAt null, cancelReasonTags [customer_declined]", cancelled.Body)
			}
			again := post(t, o.Key.Key, steps, "step-1", `{"label":"Oil change","estimatedDuration":30}`)
			if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
				t.Errorf("repeat: got %d, Idempotent-Replayed %q, body %s; want the first 201 replayed", again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
			}
			if r := post(t, o.Key.Key, steps, "step-2", `{"label":"Oil change","estimatedDuration":30}`); r.Status < 400 {
				t.Errorf("a new step on the cancelled job: got %d, want it refused; body %s", r.Status, r.Body)
			}
		})
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		other := w.key(operator.KeyRequest{UserID: a.Owner.ID})
		srv := startServer(t, db.URL, apitest.WithRateLimit(3))
		me := func(key string) *apitest.Response {
			return apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key})
		}
		intHeader := func(r *apitest.Response, name string) int {
			t.Helper()
			n, err := strconv.Atoi(r.Header.Get(name))
			if err != nil {
				t.Errorf("%s: got %q, want an integer", name, r.Header.Get(name))
			}
			return n
		}
		for i := range 3 {
			r := me(a.Key.Key)
			if r.Status != 200 {
				t.Fatalf("request %d: got %d, want 200; body %s", i+1, r.Status, r.Body)
			}
			if got := intHeader(r, "RateLimit-Limit"); got != 3 {
				t.Errorf("request %d: RateLimit-Limit got %d, want 3", i+1, got)
			}
			if got, want := intHeader(r, "RateLimit-Remaining"), 2-i; got != want {
				t.Errorf("request %d: RateLimit-Remaining got %d, want %d", i+1, got, want)
			}
			if got := intHeader(r, "RateLimit-Reset"); got < 0 {
				t.Errorf("request %d: RateLimit-Reset got %d, want >= 0", i+1, got)
			}
		}
		r := me(a.Key.Key)
		wantProblem(t, r, 429, "rate_limited", "")
		if got := intHeader(r, "Retry-After"); got < 1 {
			t.Errorf("Retry-After: got %d, want >= 1", got)
		}
		if got := intHeader(r, "RateLimit-Remaining"); got != 0 {
			t.Errorf("RateLimit-Remaining of a 429: got %d, want 0", got)
		}
		// The limit is the key's, over every operation.
		wantProblem(t, apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/integrations", Key: a.Key.Key}), 429, "rate_limited", "")
		// Another key of the same organisation has its own bucket.
		if r := me(other.Key); r.Status != 200 || r.Header.Get("RateLimit-Remaining") != "2" {
			t.Errorf("another key: got %d, RateLimit-Remaining %q; want 200, 2", r.Status, r.Header.Get("RateLimit-Remaining"))
		}
	})
}

// secretRe is an API key or MCP token.
var secretRe = regexp.MustCompile(`ws[km]_[0-9a-z]{20,}`)

func TestRequestLog(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		token, err := w.op.CreateMCPToken(context.Background(), a.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		unknown := workshop.NewSecret(workshop.APIKeyPrefix)
		expired := w.expiredKey(a)
		srv := startServer(t, db.URL)

		type sent struct {
			req   apitest.Request
			keyID string // the key_id the line must have; "" when none is known
		}
		requests := []sent{
			{apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: a.Key.Key}, a.Key.ID},
			{apitest.Request{Method: "POST", Path: "/v1/platform/integrations", Key: a.Key.Key,
				Body: `{"name":"Logged","systemType":"crm"}`, Header: http.Header{"Idempotency-Key": {"log-1"}}}, a.Key.ID},
			{apitest.Request{Method: "GET", Path: "/v1/platform/integrations/int_missing", Key: a.Key.Key}, a.Key.ID},
			{apitest.Request{Method: "GET", Path: "/v1/platform/me"}, ""},
			{apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: unknown}, ""},
			{apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: token.Token}, ""},
			{apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: expired}, ""},
			{apitest.Request{Method: "GET", Path: "/healthz"}, ""},
			{apitest.Request{Method: "GET", Path: "/nowhere?token=" + token.Token}, ""},
		}
		type answer struct {
			status int
			keyID  string
		}
		answers := map[string]answer{}
		for _, s := range requests {
			r := apitest.Call(t, srv.URL, s.req)
			answers[r.Header.Get("X-Request-Id")] = answer{r.Status, s.keyID}
		}
		if err := srv.Stop(); err != nil {
			t.Fatalf("serve returned %v, want nil", err)
		}

		lines, err := srv.Log.Lines()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, l := range lines {
			if l["msg"] != "request" {
				continue
			}
			id, _ := l["request_id"].(string)
			seen[id]++
			want, ok := answers[id]
			if !ok {
				t.Errorf("a request line for no request made: %v", l)
				continue
			}
			if got, _ := l["status"].(float64); int(got) != want.status {
				t.Errorf("%s: status got %v, want %d", id, l["status"], want.status)
			}
			if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
				t.Errorf("%s: duration_ms got %v, want a number >= 0", id, l["duration_ms"])
			}
			if want.keyID != "" && l["key_id"] != want.keyID {
				t.Errorf("%s: key_id got %v, want %s", id, l["key_id"], want.keyID)
			}
		}
		for id, ans := range answers {
			if seen[id] != 1 {
				t.Errorf("request %s (status %d): %d log lines, want 1", id, ans.status, seen[id])
			}
		}
		log := srv.Log.String()
		for _, secret := range []string{a.Key.Key, unknown, token.Token, expired} {
			if strings.Contains(log, secret) || strings.Contains(log, secret[4:]) {
				t.Errorf("the log contains the secret %s...", secret[:8])
			}
		}
		if m := secretRe.FindString(log); m != "" {
			t.Errorf("the log contains something like a secret: %s...", m[:8])
		}
	})
}

// TestGracefulShutdown cancels the server while requests are inside their
// handlers (their bodies half sent): each is answered in full and serve
// returns nil.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)

		const n = 3
		type inflight struct {
			conn net.Conn
			br   *bufio.Reader
			body string
		}
		var reqs []inflight
		for i := range n {
			c, err := net.Dial("tcp", srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			body := fmt.Sprintf(`{"name":"In flight %d","systemType":"other"}`, i)
			fmt.Fprintf(c, "POST /v1/platform/integrations HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", srv.Addr, a.Key.Key, len(body))
			br := bufio.NewReader(c)
			// The server says 100 Continue when the handler starts reading the
			// body: the request is then in flight, past authentication.
			cont, err := http.ReadResponse(br, nil)
			if err != nil || cont.StatusCode != http.StatusContinue {
				t.Fatalf("request %d: want 100 Continue, got %v, %v", i, cont, err)
			}
			reqs = append(reqs, inflight{c, br, body})
		}

		stopped := make(chan error, 1)
		go func() { stopped <- srv.Stop() }()
		// Wait until the server no longer accepts connections: the shutdown
		// has begun while the requests are in flight.
		for {
			c, err := net.DialTimeout("tcp", srv.Addr, time.Second)
			if err != nil {
				break
			}
			c.Close()
			select {
			case err := <-stopped:
				t.Fatalf("the server stopped (%v) before the requests in flight were answered", err)
			case <-time.After(10 * time.Millisecond):
			}
		}

		for i, r := range reqs {
			if _, err := io.WriteString(r.conn, r.body); err != nil {
				t.Fatalf("request %d: send the rest of the body: %v", i, err)
			}
			resp, err := http.ReadResponse(r.br, nil)
			if err != nil {
				t.Fatalf("request %d: no response after the shutdown began: %v", i, err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("request %d: read the response: %v", i, err)
			}
			if resp.StatusCode != 201 {
				t.Errorf("request %d: got %d, want 201; body %s", i, resp.StatusCode, data)
			}
			req, _ := http.NewRequest("POST", srv.URL+"/v1/platform/integrations", nil)
			for _, p := range apitest.CheckResponse(req, resp.StatusCode, resp.Header, data) {
				t.Errorf("request %d: %s", i, p)
			}
		}
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("serve returned %v, want nil after a graceful shutdown", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the server did not stop")
		}
		page, err := w.st.Integrations(context.Background(), a.ID, workshop.PageRequest{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != n {
			t.Errorf("integrations stored: got %d, want %d", len(page.Data), n)
		}
	})
}

// An explicit jobNumber may have up to 255 characters, as every string
// (contract section 2), on create and on PATCH.
func TestJobNumberLength(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		srv := startServer(t, db.URL)
		o := w.org("Long numbers", workshop.PlanPro, 1)
		create := func(number string) *apitest.Response {
			return apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: o.Key.Key,
				Body: fmt.Sprintf(`{"locationId":%q,"jobNumber":%q}`, o.Locations[0].ID, number)})
		}
		wantProblem(t, create(strings.Repeat("R", 256)), 422, "validation_failed", "jobNumber")
		r := create(strings.Repeat("R", 255))
		if r.Status != 201 {
			t.Fatalf("255 characters: got %d, want 201; body %s", r.Status, r.Body)
		}
		var job struct{ ID, UpdatedAt, JobNumber string }
		r.Decode(t, &job)
		if len(job.JobNumber) != 255 {
			t.Errorf("jobNumber has %d characters, want 255", len(job.JobNumber))
		}
		patch := func(number string) *apitest.Response {
			return apitest.Call(t, srv.URL, apitest.Request{Method: "PATCH", Path: "/v1/scheduler/jobs/" + job.ID, Key: o.Key.Key,
				Body: fmt.Sprintf(`{"updatedAt":%q,"jobNumber":%q}`, job.UpdatedAt, number)})
		}
		wantProblem(t, patch(strings.Repeat("P", 256)), 422, "validation_failed", "jobNumber")
		if r := patch(strings.Repeat("P", 255)); r.Status != 200 {
			t.Errorf("PATCH with 255 characters: got %d, want 200; body %s", r.Status, r.Body)
		}
	})
}

// Contract section 2: an unknown query parameter is 400 invalid_parameter
// naming it, on a list and on a single read alike; the declared ones pass.
func TestUnknownQueryParameters(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	o := w.org("Query Motors", workshop.PlanPro, 1)
	srv := startServer(t, db)
	for _, c := range []struct {
		path, field string // field "": accepted
	}{
		{"/v1/scheduler/jobs?locationId=" + o.Locations[0].ID + "&limit=5", ""},
		{"/v1/scheduler/jobs?stauts=booked", "stauts"},
		{"/v1/platform/me?verbose=1", "verbose"},
		{"/v1/scheduler/jobs?limit=5&zzz=1&aaa=2", "aaa"},
	} {
		r := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: c.path, Key: o.Key.Key})
		switch {
		case c.field == "" && r.Status != http.StatusOK:
			t.Errorf("GET %s: %d %s, want 200", c.path, r.Status, r.Body)
		case c.field != "":
			p := r.Problem()
			if r.Status != http.StatusBadRequest || p.Code != "invalid_parameter" || p.Field == nil || *p.Field != c.field {
				t.Errorf("GET %s: %d %s, want 400 invalid_parameter on %s", c.path, r.Status, r.Body, c.field)
			}
		}
	}
}
