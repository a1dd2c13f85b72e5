package apitest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/workshop-platform/workshop/client"
)

// recorder is a testing.TB that keeps the errors instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) all() string { return strings.Join(r.errs, "\n") }

const (
	identity = `{"keyId":"key_1","orgId":"org_1","locationId":null,"planTier":"pro","scopes":["jobs:read"]}`
	problem  = `{"type":"https://example.com/errors#not_found","title":"Not found","status":404,"code":"not_found","detail":"No such integration.","requestId":"req_1"}`
)

// TestValidatingDoer serves canned responses and checks that the doer
// accepts the good ones and reports each kind of bad one.
func TestValidatingDoer(t *testing.T) {
	t.Parallel()
	type canned struct {
		status int
		header map[string]string
		body   string
	}
	for _, tc := range []struct {
		name   string
		method string
		path   string
		resp   canned
		want   string // "" when no error is expected; else a part of the error
	}{
		{"valid identity", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "application/json"}, identity}, ""},
		{"valid problem", "GET", "/v1/platform/integrations/int_1", canned{404, map[string]string{"Content-Type": "application/problem+json"}, problem}, ""},
		{"outside the document", "GET", "/healthz", canned{200, map[string]string{"Content-Type": "application/json"}, `{"status":"ok"}`}, ""},
		{"unknown /v1 path refused", "GET", "/v1/nope", canned{404, map[string]string{"Content-Type": "application/problem+json"}, problem}, ""},
		{"no request id", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "application/json", "X-Request-Id": ""}, identity}, "X-Request-Id"},
		{"request id without prefix", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "application/json", "X-Request-Id": "abc"}, identity}, "X-Request-Id"},
		{"body off the schema", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "application/json"}, `{"keyId":"key_1"}`}, "does not match"},
		{"wrong member type", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "application/json"},
			strings.Replace(identity, `"planTier":"pro"`, `"planTier":"platinum"`, 1)}, "does not match"},
		{"undeclared status", "GET", "/v1/platform/me", canned{418, map[string]string{"Content-Type": "application/problem+json"},
			strings.Replace(problem, `"status":404`, `"status":418`, 1)}, "status is not supported"},
		{"wrong content type", "GET", "/v1/platform/me", canned{200, map[string]string{"Content-Type": "text/plain"}, identity}, "does not match"},
		{"error without a problem", "GET", "/v1/platform/integrations/int_1", canned{404, map[string]string{"Content-Type": "application/json"}, `{}`}, "application/problem+json"},
		{"problem with another request id", "GET", "/v1/platform/integrations/int_1", canned{404, map[string]string{"Content-Type": "application/problem+json", "X-Request-Id": "req_2"}, problem}, "requestId"},
		{"problem with another status", "GET", "/v1/platform/integrations/int_1", canned{404, map[string]string{"Content-Type": "application/problem+json"},
			strings.Replace(problem, `"status":404`, `"status":400`, 1)}, "problem status"},
		{"problem with an unknown code", "GET", "/v1/platform/integrations/int_1", canned{404, map[string]string{"Content-Type": "application/problem+json"},
			strings.Replace(problem, `"not_found"`, `"gone"`, 1)}, "Problem schema"},
		{"401 without WWW-Authenticate", "GET", "/v1/platform/me", canned{401, map[string]string{"Content-Type": "application/problem+json"},
			strings.Replace(strings.Replace(problem, `"status":404`, `"status":401`, 1), `"not_found"`, `"missing_key"`, 1)}, "WWW-Authenticate"},
		{"unknown /v1 path answered", "GET", "/v1/nope", canned{200, map[string]string{"Content-Type": "application/json"}, `{}`}, "not an operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Request-Id", "req_1")
				for k, v := range tc.resp.header {
					if v == "" {
						w.Header().Del(k)
						continue
					}
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.resp.status)
				_, _ = w.Write([]byte(tc.resp.body))
			}))
			defer srv.Close()
			rec := &recorder{TB: t}
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			resp, err := NewDoer(rec).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := rec.all()
			switch {
			case tc.want == "" && got != "":
				t.Errorf("want no error, got:\n%s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("want an error mentioning %q, got:\n%s", tc.want, got)
			}
		})
	}
}

func TestClientValidates(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer wsk_test" {
			t.Errorf("Authorization: got %q, want Bearer wsk_test", r.Header.Get("Authorization"))
		}
		w.Header().Set("X-Request-Id", "req_1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"keyId":"key_1"}`))
	}))
	defer srv.Close()
	rec := &recorder{TB: t}
	r, err := Client(rec, srv.URL, "wsk_test").GetMeWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != 200 || !strings.Contains(rec.all(), "does not match") {
		t.Errorf("got status %d and errors %q; want 200 and a schema mismatch", r.StatusCode(), rec.all())
	}
}

func TestOperationsAndExample(t *testing.T) {
	t.Parallel()
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Operation{}
	for _, op := range ops {
		byID[op.ID] = op
	}
	create, ok := byID["createIntegration"]
	if !ok || create.Method != "POST" || create.Path != "/v1/platform/integrations" || create.Body == nil {
		t.Fatalf("createIntegration: got %+v", create)
	}
	body, _ := Example(create.Body).(map[string]any)
	if body["systemType"] != "dms" || body["name"] == nil || len(body) != 2 {
		t.Errorf("Example(IntegrationCreate): got %v, want name and systemType dms", body)
	}
	get := byID["getIntegration"]
	path, err := get.ExpandPath(map[string]string{"integrationId": "int_1"})
	if err != nil || path != "/v1/platform/integrations/int_1" {
		t.Errorf("ExpandPath: got %q, %v", path, err)
	}
	if _, err := get.ExpandPath(nil); err == nil {
		t.Errorf("ExpandPath without a value: want an error")
	}
	if list := byID["listIntegrations"]; strings.Join(list.QueryParams, ",") != "limit,cursor" {
		t.Errorf("listIntegrations query parameters: got %v, want [limit cursor]", list.QueryParams)
	}
}

// TestStartStop runs a stand-in server through Start and Stop.
func TestStartStop(t *testing.T) {
	t.Parallel()
	var got Config
	srv := Start(t, "sqlite://test.db", func(ctx context.Context, c Config) error {
		got = c
		ln, err := net.Listen("tcp", c.Addr)
		if err != nil {
			return err
		}
		s := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(c.Log, `{"msg":"request"}`)
			w.Header().Set("X-Request-Id", "req_1")
		})}
		c.OnListen(ln.Addr().String())
		go func() { <-ctx.Done(); _ = s.Shutdown(context.Background()) }()
		if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, WithRateLimit(7))
	if got.Database != "sqlite://test.db" || got.RateLimitPerMinute != 7 || !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Errorf("config %+v, URL %s", got, srv.URL)
	}
	if r := Call(t, srv.URL, Request{Method: "GET", Path: "/healthz"}); r.Status != 200 {
		t.Errorf("status %d", r.Status)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	lines, err := srv.Log.Lines()
	if err != nil || len(lines) != 1 || lines[0]["msg"] != "request" {
		t.Errorf("log lines: got %v, %v", lines, err)
	}
	var _ client.HttpRequestDoer = NewDoer(t)
}
