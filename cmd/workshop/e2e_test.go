package main

// End-to-end tests: the real server (serveWith) on real databases (SQLite
// always, PostgreSQL when WORKSHOP_TEST_POSTGRES_URL is set), called over
// HTTP through the generated client; every response is checked against
// api/openapi.yaml by apitest.ValidatingDoer.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/client"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// serveForTest runs the real server (serveWith) with the settings apitest
// asks for.
func serveForTest(ctx context.Context, c apitest.Config) error {
	return serveWith(ctx, testServeConfig(c), io.Discard, c.Log)
}

// testServeConfig is the server's configuration for the settings apitest
// asks for; a test may change more before it serves.
func testServeConfig(c apitest.Config) serveConfig {
	return serveConfig{
		database:             c.Database,
		addr:                 c.Addr,
		onListen:             c.OnListen,
		rateLimitPerMinute:   c.RateLimitPerMinute,
		shutdownGrace:        c.ShutdownGrace,
		bodyTimeout:          c.BodyTimeout,
		retryDelays:          []time.Duration{time.Second},
		webhookTimeout:       time.Second,
		webhookAllowInsecure: true,
		arrivalSkew:          5 * time.Minute,
	}
}

// startServer runs the real server on the database until the test ends.
func startServer(t *testing.T, databaseURL string, opts ...apitest.Option) *apitest.Server {
	t.Helper()
	return apitest.Start(t, databaseURL, serveForTest, opts...)
}

// testWorld makes fixtures in a database with the operator, as `workshop admin`
// does.
type testWorld struct {
	t  *testing.T
	st *store.Store
	op *operator.Operator
}

func newWorld(t *testing.T, databaseURL string) *testWorld {
	t.Helper()
	st := storetest.Open(t, databaseURL)
	return &testWorld{t: t, st: st, op: operator.New(st)}
}

// testOrg is an organisation with its locations, its owner and an org-scoped
// key with every scope.
type testOrg struct {
	ID        string
	Plan      workshop.Plan
	Locations []workshop.Location
	Owner     workshop.User
	Key       operator.KeyOut
}

func (w *testWorld) org(name string, plan workshop.Plan, locations int) *testOrg {
	w.t.Helper()
	zones := []string{"Europe/Berlin", "America/New_York", "Asia/Tokyo"}
	in := make([]string, locations)
	for i := range in {
		in[i] = zones[i%len(zones)]
	}
	return w.orgIn(name, plan, in...)
}

// orgIn is an organisation with a location in each of zones.
func (w *testWorld) orgIn(name string, plan workshop.Plan, zones ...string) *testOrg {
	w.t.Helper()
	ctx := context.Background()
	o, err := w.op.CreateOrg(ctx, name, plan)
	if err != nil {
		w.t.Fatalf("create org: %v", err)
	}
	out := &testOrg{ID: o.ID, Plan: plan}
	for i, zone := range zones {
		l, err := w.op.CreateLocation(ctx, o.ID, fmt.Sprintf("%s site %d", name, i+1), zone, "EUR")
		if err != nil {
			w.t.Fatalf("create location: %v", err)
		}
		out.Locations = append(out.Locations, l)
	}
	if out.Owner, err = w.op.CreateUser(ctx, o.ID, "owner@example.com", workshop.RoleOwner, false); err != nil {
		w.t.Fatalf("create user: %v", err)
	}
	out.Key = w.key(operator.KeyRequest{UserID: out.Owner.ID})
	for _, l := range out.Locations {
		if _, err := w.op.SetCancelTags(ctx, l.ID, []string{"customer_declined", "parts_unavailable"}); err != nil {
			w.t.Fatalf("set cancel tags: %v", err)
		}
	}
	return out
}

func (w *testWorld) key(r operator.KeyRequest) operator.KeyOut {
	w.t.Helper()
	k, err := w.op.CreateKey(context.Background(), r)
	if err != nil {
		w.t.Fatalf("create key %+v: %v", r, err)
	}
	return k
}

// locationKey is a key of the owner pinned to the org's i-th location.
func (o *testOrg) locationKey(w *testWorld, i int) operator.KeyOut {
	return w.key(operator.KeyRequest{UserID: o.Owner.ID, LocationID: o.Locations[i].ID})
}

// integration stores an integration directly (the free plan cannot make
// one through the API).
func (w *testWorld) integration(orgID, name string) workshop.Integration {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	in, err := w.st.CreateIntegration(context.Background(), workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration),
		OrgID: orgID, Name: name, SystemType: "dms", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		w.t.Fatalf("create integration: %v", err)
	}
	return in
}

// job stores a walk-in job directly, as POST /v1/scheduler/jobs does.
func (w *testWorld) job(orgID, locationID string) workshop.Job {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	res, err := w.st.CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: orgID,
		LocationID: locationID, Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
	if err != nil {
		w.t.Fatalf("create job: %v", err)
	}
	return res.Job
}

// step stores a pending step of a job directly, as POST .../steps does.
func (w *testWorld) step(orgID, jobID string) workshop.Step {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	st, err := w.st.CreateStep(context.Background(), store.Visibility{OrgID: orgID}, workshop.Step{ID: workshop.NewID(workshop.PrefixStep),
		JobID: jobID, Label: "Matrix step", SchedulingMode: "sequential", EstimatedDuration: 30, TechIDs: []string{},
		Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		w.t.Fatalf("create step: %v", err)
	}
	return st
}

// expiredKey writes an API key that expired an hour ago straight into the
// store (the operator refuses a past expiry) and returns its secret.
func (w *testWorld) expiredKey(o *testOrg) string {
	w.t.Helper()
	secret := workshop.NewSecret(workshop.APIKeyPrefix)
	past := workshop.MicrosOf(time.Now().Add(-time.Hour))
	_, err := w.st.CreateCredential(context.Background(), workshop.Credential{ID: workshop.NewID(workshop.PrefixKey),
		Kind: workshop.KindAPIKey, OrgID: o.ID, UserID: o.Owner.ID, SecretHash: workshop.HashSecret(secret),
		Scopes: workshop.AllScopes, ExpiresAt: &past, CreatedAt: workshop.MicrosOf(time.Now().Add(-2 * time.Hour))})
	if err != nil {
		w.t.Fatalf("create expired key: %v", err)
	}
	return secret
}

// wantProblem fails t unless the response is the problem with that status
// and code (and field, when field is not empty).
func wantProblem(t *testing.T, r *apitest.Response, status int, code, field string) client.Problem {
	t.Helper()
	p := r.Problem()
	if r.Status != status || string(p.Code) != code {
		t.Errorf("got %d %q, want %d %q; body: %s", r.Status, p.Code, status, code, r.Body)
	}
	if field != "" && (p.Field == nil || *p.Field != field) {
		t.Errorf("problem field: got %v, want %q; body: %s", ptrValue(p.Field), field, r.Body)
	}
	return p
}

func ptrValue[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// auditTimestampRe is an audit timestamp: UTC, exactly six fractional digits.
var auditTimestampRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

// rawMembers decodes a JSON object's members without interpreting them.
func rawMembers(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, body)
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestPlatformMe(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 2)
		locKey := a.locationKey(w, 1)
		jobsOnly := w.key(operator.KeyRequest{UserID: a.Owner.ID, Scopes: "jobs:read"})
		srv := startServer(t, db.URL)

		t.Run("org key", func(t *testing.T) {
			r, err := apitest.Client(t, srv.URL, a.Key.Key).GetMeWithResponse(t.Context())
			if err != nil || r.JSON200 == nil {
				t.Fatalf("GetMe: %v, status %d, body %s", err, r.StatusCode(), r.Body)
			}
			me := r.JSON200
			if me.KeyId != a.Key.ID || me.OrgId != a.ID || me.PlanTier != client.Pro {
				t.Errorf("got key %s org %s plan %s, want %s %s pro", me.KeyId, me.OrgId, me.PlanTier, a.Key.ID, a.ID)
			}
			if !me.LocationId.IsNull() {
				t.Errorf("locationId of an org key: got %v, want null; body %s", me.LocationId, r.Body)
			}
			if got := rawMembers(t, r.Body)["locationId"]; string(got) != "null" {
				t.Errorf("locationId member: got %s, want null", got)
			}
			var got, want []string
			for _, s := range me.Scopes {
				got = append(got, string(s))
			}
			for _, s := range workshop.AllScopes {
				want = append(want, string(s))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("scopes of an owner's key: got %v, want every scope %v", got, want)
			}
		})
		t.Run("location key", func(t *testing.T) {
			r, err := apitest.Client(t, srv.URL, locKey.Key).GetMeWithResponse(t.Context())
			if err != nil || r.JSON200 == nil {
				t.Fatalf("GetMe: %v, status %d, body %s", err, r.StatusCode(), r.Body)
			}
			if got, _ := r.JSON200.LocationId.Get(); got != a.Locations[1].ID {
				t.Errorf("locationId: got %q, want %q", got, a.Locations[1].ID)
			}
		})
		t.Run("scoped key", func(t *testing.T) {
			r, err := apitest.Client(t, srv.URL, jobsOnly.Key).GetMeWithResponse(t.Context())
			if err != nil || r.JSON200 == nil {
				t.Fatalf("GetMe: %v, status %d, body %s", err, r.StatusCode(), r.Body)
			}
			if got := r.JSON200.Scopes; len(got) != 1 || got[0] != client.JobsRead {
				t.Errorf("scopes: got %v, want [jobs:read]", got)
			}
		})
	})
}

func TestPlatformLocations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 2)
		b := w.org("Beta Cars", workshop.PlanStarter, 1)
		locKey := a.locationKey(w, 1)
		srv := startServer(t, db.URL)

		ids := func(locs []workshop.Location) []string {
			var out []string
			for _, l := range locs {
				out = append(out, l.ID)
			}
			slices.Sort(out)
			return out
		}
		for _, tc := range []struct {
			name string
			key  string
			want []workshop.Location
		}{
			{"org key sees every location of its org", a.Key.Key, a.Locations},
			{"location key sees its own only", locKey.Key, a.Locations[1:2]},
			{"other org's key sees its own only", b.Key.Key, b.Locations},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r, err := apitest.Client(t, srv.URL, tc.key).ListLocationsWithResponse(t.Context())
				if err != nil || r.JSON200 == nil {
					t.Fatalf("ListLocations: %v, status %d, body %s", err, r.StatusCode(), r.Body)
				}
				var got []string
				for _, l := range r.JSON200.Data {
					got = append(got, l.Id)
					i := slices.IndexFunc(tc.want, func(x workshop.Location) bool { return x.ID == l.Id })
					if i >= 0 && (l.Name != tc.want[i].Name || l.Timezone != tc.want[i].Timezone || l.CurrencyCode != tc.want[i].CurrencyCode) {
						t.Errorf("location %s: got %+v, want %+v", l.Id, l, tc.want[i])
					}
				}
				slices.Sort(got)
				if want := ids(tc.want); !slices.Equal(got, want) {
					t.Errorf("locations: got %v, want %v", got, want)
				}
				if !r.JSON200.NextCursor.IsNull() {
					t.Errorf("nextCursor: got %v, want null", r.JSON200.NextCursor)
				}
			})
		}
	})
}

func TestPlatformIntegrations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		b := w.org("Beta Cars", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		ca := apitest.Client(t, srv.URL, a.Key.Key)
		ctx := t.Context()

		created, err := ca.CreateIntegrationWithResponse(ctx, nil, client.IntegrationCreate{Name: "Autoline DMS", SystemType: client.SystemTypeDms})
		if err != nil || created.JSON201 == nil {
			t.Fatalf("CreateIntegration: %v, status %d, body %s", err, created.StatusCode(), created.Body)
		}
		in := created.JSON201
		t.Run("create", func(t *testing.T) {
			if !strings.HasPrefix(in.Id, workshop.PrefixIntegration) || in.Name != "Autoline DMS" || in.SystemType != client.SystemTypeDms {
				t.Errorf("got %+v, want id int_..., name Autoline DMS, systemType dms", in)
			}
			m := rawMembers(t, created.Body)
			if got, want := sortedKeys(m), []string{"createdAt", "id", "name", "systemType", "updatedAt"}; !slices.Equal(got, want) {
				t.Errorf("members: got %v, want %v", got, want)
			}
			for _, f := range []string{"createdAt", "updatedAt"} {
				var s string
				_ = json.Unmarshal(m[f], &s)
				if !auditTimestampRe.MatchString(s) {
					t.Errorf("%s: got %q, want UTC with six fractional digits", f, s)
				}
			}
			if !in.CreatedAt.Equal(in.UpdatedAt) {
				t.Errorf("a new record: createdAt %v != updatedAt %v", in.CreatedAt, in.UpdatedAt)
			}
		})
		t.Run("get", func(t *testing.T) {
			r, err := ca.GetIntegrationWithResponse(ctx, in.Id)
			if err != nil || r.JSON200 == nil {
				t.Fatalf("GetIntegration: %v, status %d, body %s", err, r.StatusCode(), r.Body)
			}
			if *r.JSON200 != *in {
				t.Errorf("got %+v, want the created %+v", *r.JSON200, *in)
			}
		})
		t.Run("get of another org is not_found", func(t *testing.T) {
			r, err := apitest.Client(t, srv.URL, b.Key.Key).GetIntegrationWithResponse(ctx, in.Id)
			if err != nil {
				t.Fatal(err)
			}
			wantProblem(t, &apitest.Response{Status: r.StatusCode(), Header: r.HTTPResponse.Header, Body: r.Body}, 404, "not_found", "")
		})
		t.Run("get of a missing id is not_found", func(t *testing.T) {
			r, err := ca.GetIntegrationWithResponse(ctx, workshop.NewID(workshop.PrefixIntegration))
			if err != nil {
				t.Fatal(err)
			}
			wantProblem(t, &apitest.Response{Status: r.StatusCode(), Header: r.HTTPResponse.Header, Body: r.Body}, 404, "not_found", "")
		})
		t.Run("list walks every page once", func(t *testing.T) {
			want := []string{in.Id}
			for i := range 4 {
				r, err := ca.CreateIntegrationWithResponse(ctx, nil, client.IntegrationCreate{Name: fmt.Sprintf("ERP %d", i), SystemType: client.SystemTypeErp})
				if err != nil || r.JSON201 == nil {
					t.Fatalf("CreateIntegration: %v, status %d, body %s", err, r.StatusCode(), r.Body)
				}
				want = append(want, r.JSON201.Id)
			}
			w.integration(b.ID, "Beta's own") // another org's row never shows
			var got []string
			var pages []int
			limit := 2
			params := &client.ListIntegrationsParams{Limit: &limit}
			for range 10 {
				r, err := ca.ListIntegrationsWithResponse(ctx, params)
				if err != nil || r.JSON200 == nil {
					t.Fatalf("ListIntegrations: %v, status %d, body %s", err, r.StatusCode(), r.Body)
				}
				pages = append(pages, len(r.JSON200.Data))
				for _, x := range r.JSON200.Data {
					got = append(got, x.Id)
				}
				next, err := r.JSON200.NextCursor.Get()
				if r.JSON200.NextCursor.IsNull() || err != nil {
					break
				}
				params = &client.ListIntegrationsParams{Limit: &limit, Cursor: &next}
			}
			if !slices.Equal(got, want) {
				t.Errorf("walk: got %v, want %v (oldest first, each once)", got, want)
			}
			if !slices.Equal(pages, []int{2, 2, 1}) {
				t.Errorf("page sizes: got %v, want [2 2 1]", pages)
			}
			r, err := ca.ListIntegrationsWithResponse(ctx, nil)
			if err != nil || r.JSON200 == nil {
				t.Fatalf("ListIntegrations: %v, status %d", err, r.StatusCode())
			}
			if len(r.JSON200.Data) != 5 || !r.JSON200.NextCursor.IsNull() {
				t.Errorf("default page: got %d rows, nextCursor %v; want 5, null", len(r.JSON200.Data), r.JSON200.NextCursor)
			}
		})
		t.Run("bad list parameters", func(t *testing.T) {
			for _, tc := range []struct {
				query, field string
			}{
				{"limit=0", "limit"},
				{"limit=201", "limit"},
				{"limit=ten", "limit"},
				{"cursor=not-a-cursor!", "cursor"},
				{"cursor=" + strings.Repeat("A", 40), "cursor"},
			} {
				t.Run(tc.query, func(t *testing.T) {
					req := apitest.Request{Method: "GET", Path: "/v1/platform/integrations?" + tc.query, Key: a.Key.Key}
					wantProblem(t, apitest.Call(t, srv.URL, req), 400, "invalid_parameter", tc.field)
				})
			}
		})
	})
}

func TestConventions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		key := a.Key.Key
		call := func(t *testing.T, r apitest.Request) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, r)
		}
		post := func(t *testing.T, body any, ct string) *apitest.Response {
			t.Helper()
			return call(t, apitest.Request{Method: "POST", Path: "/v1/platform/integrations", Key: key, Body: body, ContentType: ct})
		}

		t.Run("request ids", func(t *testing.T) {
			seen := map[string]string{}
			for _, tc := range []struct {
				name   string
				req    apitest.Request
				status []int
			}{
				{"200", apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key}, []int{200}},
				{"401", apitest.Request{Method: "GET", Path: "/v1/platform/me"}, []int{401}},
				{"404 record", apitest.Request{Method: "GET", Path: "/v1/platform/integrations/int_missing", Key: key}, []int{404}},
				{"404 path", apitest.Request{Method: "GET", Path: "/v1/no/such/path", Key: key}, []int{404}},
				{"404 outside /v1 (the application's page)", apitest.Request{Method: "GET", Path: "/nowhere"}, []int{404}},
				{"405 or 404", apitest.Request{Method: "DELETE", Path: "/v1/platform/me", Key: key}, []int{404, 405}},
				{"healthz", apitest.Request{Method: "GET", Path: "/healthz"}, []int{200}},
			} {
				r := call(t, tc.req)
				if !slices.Contains(tc.status, r.Status) {
					t.Errorf("%s: status got %d, want one of %v; body %s", tc.name, r.Status, tc.status, r.Body)
				}
				id := r.Header.Get("X-Request-Id")
				if prev, dup := seen[id]; dup {
					t.Errorf("%s: X-Request-Id %q repeats the one of %s", tc.name, id, prev)
				}
				seen[id] = tc.name
				if r.Status >= 400 && strings.HasPrefix(tc.req.Path, "/v1/") {
					if p := r.Problem(); p.RequestId != id {
						t.Errorf("%s: requestId %q, want the header's %q", tc.name, p.RequestId, id)
					}
				}
			}
		})
		t.Run("415 unsupported_media_type", func(t *testing.T) {
			wantProblem(t, post(t, `{"name":"x","systemType":"dms"}`, "text/plain"), 415, "unsupported_media_type", "")
		})
		t.Run("application/json with a charset is JSON", func(t *testing.T) {
			if r := post(t, `{"name":"Charset","systemType":"dms"}`, "application/json; charset=utf-8"); r.Status != 201 {
				t.Errorf("got %d, want 201; body %s", r.Status, r.Body)
			}
		})
		t.Run("413 body_too_large", func(t *testing.T) {
			const size = 1<<20 + 1 // 1 MiB and one byte
			body := `{"name":"` + strings.Repeat("a", size-len(`{"name":""}`)) + `"}`
			wantProblem(t, post(t, body, ""), 413, "body_too_large", "")
		})
		t.Run("1 MiB is accepted as a size", func(t *testing.T) {
			// Padding with spaces keeps the JSON valid: the name is too long,
			// which is a validation error, not a size error.
			inner := `{"name":"` + strings.Repeat("a", 300) + `","systemType":"dms"}`
			body := inner + strings.Repeat(" ", 1<<20-len(inner))
			wantProblem(t, post(t, body, ""), 422, "validation_failed", "name")
		})
		t.Run("400 invalid_json", func(t *testing.T) {
			wantProblem(t, post(t, `{"name":`, ""), 400, "invalid_json", "")
		})
		t.Run("400 unknown_field names it", func(t *testing.T) {
			p := wantProblem(t, post(t, `{"name":"x","systemType":"dms","colour":"red"}`, ""), 400, "unknown_field", "colour")
			if !strings.Contains(p.Detail, "colour") {
				t.Errorf("detail %q does not name the member colour", p.Detail)
			}
		})
		t.Run("422 validation_failed systemType", func(t *testing.T) {
			p := wantProblem(t, post(t, map[string]any{"name": "x", "systemType": "bogus"}, ""), 422, "validation_failed", "systemType")
			if p.Errors == nil || !slices.ContainsFunc(*p.Errors, func(e client.FieldError) bool { return e.Field == "systemType" }) {
				t.Errorf("errors[]: got %v, want an entry for systemType", ptrValue(p.Errors))
			}
		})
		t.Run("422 validation_failed missing name", func(t *testing.T) {
			req := apitest.Request{Method: "POST", Path: "/v1/platform/integrations", Key: key, Body: map[string]any{"systemType": "dms"}}
			p := wantProblem(t, call(t, req), 422, "validation_failed", "name")
			if p.Errors == nil || !slices.ContainsFunc(*p.Errors, func(e client.FieldError) bool { return e.Field == "name" && e.Code == "required" }) {
				t.Errorf("errors[]: got %v, want an entry for name, code required", ptrValue(p.Errors))
			}
		})
		t.Run("health and readiness", func(t *testing.T) {
			for _, path := range []string{"/healthz", "/readyz"} {
				r := call(t, apitest.Request{Method: "GET", Path: path})
				if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
					t.Errorf("%s: got %d %s, want 200 JSON; body %s", path, r.Status, r.Header.Get("Content-Type"), r.Body)
				}
			}
		})
		t.Run("metrics", func(t *testing.T) {
			call(t, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key})
			r := call(t, apitest.Request{Method: "GET", Path: "/metrics"})
			if r.Status != 200 || !bytes.Contains(r.Body, []byte("workshop_http_requests_total")) {
				t.Errorf("/metrics: got %d without workshop_http_requests_total:\n%.2000s", r.Status, r.Body)
			}
			if !bytes.Contains(r.Body, []byte(`workshop_http_requests_total{operation="getMe",status="200"}`)) {
				t.Errorf("/metrics: no getMe 200 counter")
			}
		})
		t.Run("openapi.json", func(t *testing.T) {
			r := call(t, apitest.Request{Method: "GET", Path: "/v1/openapi.json"})
			var doc struct {
				OpenAPI string                     `json:"openapi"`
				Paths   map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(r.Body, &doc); err != nil || r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("got %d %s, %v; want 200 application/json", r.Status, r.Header.Get("Content-Type"), err)
			}
			if doc.OpenAPI != "3.0.3" {
				t.Errorf("openapi: got %q, want 3.0.3", doc.OpenAPI)
			}
			spec, err := apitest.Document()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sortedKeys(doc.Paths), sortedKeys(spec.Paths.Map()); !slices.Equal(got, want) {
				t.Errorf("paths served: got %v, want api/openapi.yaml's %v", got, want)
			}
		})
	})
}
