package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestReadIsTheRESTRead: an in-process Read as the MCP token's user answers
// what GET over HTTP answers with an API key of the same user, errors
// included (but for the request id and the board's generatedAt).
func TestReadIsTheRESTRead(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		st := storetest.Open(t, db.URL)
		op := operator.New(st)
		org, _ := op.CreateOrg(ctx, "Read Motors", workshop.PlanPro)
		loc, err := op.CreateLocation(ctx, org.ID, "Berlin", "Europe/Berlin", "EUR")
		if err != nil {
			t.Fatal(err)
		}
		tech, _ := op.CreateUser(ctx, org.ID, "tech@example.com", workshop.RoleTechnician, true)
		owner, _ := op.CreateUser(ctx, org.ID, "owner@example.com", workshop.RoleOwner, false)
		if _, err := op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Ana", Skills: []string{"oil"}, WIPLimit: 2}); err != nil {
			t.Fatal(err)
		}
		api, err := httpapi.New(st, httpapi.Config{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.Handler())
		defer srv.Close()
		now := workshop.MicrosOf(time.Now())
		job, err := st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org.ID, LocationID: loc.ID,
			Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, user := range []workshop.User{owner, tech} {
			key, err := op.CreateKey(ctx, operator.KeyRequest{UserID: user.ID})
			if err != nil {
				t.Fatal(err)
			}
			token, err := op.CreateMCPToken(ctx, user.ID)
			if err != nil {
				t.Fatal(err)
			}
			p, err := httpapi.Authenticate(ctx, st, "Bearer "+token.Token, workshop.KindMCPToken, workshop.MicrosOf(time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			for _, target := range []string{
				"/v1/scheduler/jobs", "/v1/scheduler/jobs?limit=1", "/v1/scheduler/jobs?limit=0", "/v1/scheduler/jobs?status=nope",
				"/v1/scheduler/jobs/" + job.Job.ID, "/v1/scheduler/jobs/" + job.Job.ID + "/detail", "/v1/scheduler/jobs/job_missing",
				"/v1/scheduler/board?locationId=" + loc.ID, "/v1/scheduler/board", "/v1/scheduler/cancel-reason-tags?locationId=" + loc.ID,
				"/v1/scheduler/technicians", "/v1/scheduler/bays", "/v1/scheduler/catalog", "/v1/scheduler/workshop",
				"/v1/scheduler/attendance?from=2026-11-01", "/v1/scheduler/attendance?from=yesterday", "/v1/platform/webhooks",
				"/v1/scheduler/jobs/a%2Fb", "/v1/nothing",
			} {
				u, _ := url.Parse(target)
				status, body := api.Read(ctx, p, u.EscapedPath(), u.Query())
				req, _ := http.NewRequest(http.MethodGet, srv.URL+target, nil)
				req.Header.Set("Authorization", "Bearer "+key.Key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if status != resp.StatusCode || !sameRead(body, want) {
					t.Errorf("%s as %s: Read %d %s\nREST %d %s", target, user.Role, status, body, resp.StatusCode, want)
				}
			}
		}

		// Read never leaves the API, never follows dot segments, needs a caller.
		p := &workshop.Principal{KeyID: "key_x", Kind: workshop.KindMCPToken, OrgID: org.ID, Role: workshop.RoleOwner,
			PlanTier: workshop.PlanPro, Scopes: workshop.AllScopes}
		for _, path := range []string{"/healthz", "/v1/scheduler/jobs/../../platform/me", "/v1/scheduler/jobs/" + job.Job.ID + "/./detail"} {
			if status, body := api.Read(ctx, p, path, nil); status != http.StatusNotFound || !strings.Contains(string(body), `"not_found"`) {
				t.Errorf("Read %s: %d %s, want 404 not_found", path, status, body)
			}
		}
		if status, body := api.Read(ctx, nil, "/v1/scheduler/jobs", nil); status != http.StatusInternalServerError {
			t.Errorf("Read without a caller: %d %s, want 500", status, body)
		}
	})
}

// sameRead compares two JSON bodies but for what differs from one request
// to the next: the request id, the board's generatedAt and a job detail's
// projected completion (now, for a job with nothing left to do).
func sameRead(a, b []byte) bool {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	for _, m := range []map[string]any{x, y} {
		delete(m, "requestId")
		delete(m, "generatedAt")
		if promise, ok := m["promise"].(map[string]any); ok {
			delete(promise, "projectedCompletion")
		}
	}
	return reflect.DeepEqual(x, y)
}

// TestMCPAuth: the MCP endpoint takes MCP tokens only, checked on every
// request; anything else is a 401 problem with WWW-Authenticate: Bearer.
func TestMCPAuth(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, storetest.SQLiteURL(t))
	op := operator.New(st)
	org, _ := op.CreateOrg(ctx, "Auth Motors", workshop.PlanPro)
	user, err := op.CreateUser(ctx, org.ID, "owner@example.com", workshop.RoleOwner, false)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := op.CreateKey(ctx, operator.KeyRequest{UserID: user.ID})
	token, _ := op.CreateMCPToken(ctx, user.ID)
	revoked, _ := op.CreateMCPToken(ctx, user.ID)
	if _, err := op.RevokeKey(ctx, revoked.ID); err != nil {
		t.Fatal(err)
	}
	api, err := httpapi.New(st, httpapi.Config{RateLimitPerMinute: 100})
	if err != nil {
		t.Fatal(err)
	}
	api.Mount("/mcp", api.MCPAuth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := httpapi.CallerOf(r.Context())
		_, _ = io.WriteString(w, p.KeyID+" "+p.UserID)
	})))
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		auth, code string
	}{
		{"", "missing_key"},
		{"Bearer " + key.Key, "invalid_key"},
		{"Bearer " + workshop.NewSecret(workshop.MCPTokenPrefix), "invalid_key"},
		{"Bearer " + revoked.Token, "key_revoked"},
		{"Basic " + token.Token, "invalid_key"},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Code, RequestID string }
		_ = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || p.Code != tc.code || resp.Header.Get("Content-Type") != "application/problem+json" ||
			!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") || p.RequestID != resp.Header.Get("X-Request-Id") {
			t.Errorf("%.20q: %d %+v %v, want 401 %s problem with WWW-Authenticate: Bearer", tc.auth, resp.StatusCode, p, resp.Header, tc.code)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+token.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != token.ID+" "+user.ID || resp.Header.Get("RateLimit-Limit") == "" {
		t.Errorf("a valid token: %d %q %v, want the caller %s %s and the rate limit headers", resp.StatusCode, body, resp.Header, token.ID, user.ID)
	}
	// The token at /v1 is refused, as an API key at /mcp is.
	req, _ = http.NewRequest(http.MethodGet, srv.URL+"/v1/platform/me", nil)
	req.Header.Set("Authorization", "Bearer "+token.Token)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an MCP token at /v1: %d, want 401", resp.StatusCode)
	}
}
