package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// opRule is what an operation requires of its caller (contract section 3).
type opRule struct {
	scope   workshop.Scope // "" when any valid key will do
	anyPlan bool           // the free plan may call it too (only GET /v1/platform/me)
}

// operationRules has a row for every operation of the OpenAPI document;
// TestAuthorizationMatrix fails for an operation without one, so a new
// endpoint cannot skip the matrix.
var operationRules = map[string]opRule{
	"getMe":             {anyPlan: true},
	"listLocations":     {},
	"createIntegration": {scope: "integrations:write"},
	"listIntegrations":  {scope: "integrations:read"},
	"getIntegration":    {scope: "integrations:read"},

	"createJob":            {scope: "jobs:write"},
	"listJobs":             {scope: "jobs:read"},
	"getJob":               {scope: "jobs:read"},
	"patchJob":             {scope: "jobs:write"},
	"createStep":           {scope: "jobs:write"},
	"patchStep":            {scope: "jobs:write"},
	"deliverJob":           {scope: "jobs:write"},
	"cancelJob":            {scope: "jobs:write"},
	"listCancelReasonTags": {scope: "jobs:read"},

	"listTechnicians": {scope: "technicians:read"},
	"getTechnician":   {scope: "technicians:read"},
	"patchTechnician": {scope: "technicians:write"},
	"listBays":        {scope: "bays:read"},
	"getBay":          {scope: "bays:read"},
	"patchBay":        {scope: "bays:write"},
	"getBoard":        {scope: "board:read"},
	"getPlan":         {scope: "board:read"},
	"getAvailability": {scope: "board:read"},
	"applyPlan":       {scope: "jobs:write"},
	"previewPlan":     {scope: "board:read"},

	"getAvailabilityDays": {scope: "board:read"},
	"getCapacity":         {scope: "board:read"},

	"listAbsences":              {scope: "attendance:read"},
	"createAbsence":             {scope: "attendance:write"},
	"deleteAbsence":             {scope: "attendance:write"},
	"listBayMaintenanceWindows": {scope: "bays:read"},
	"createMaintenanceWindow":   {scope: "bays:write"},
	"deleteMaintenanceWindow":   {scope: "bays:write"},
	"listMaintenanceWindows":    {scope: "bays:read"},

	"getJobDetail":        {scope: "jobs:read"},
	"listAttendance":      {scope: "attendance:read"},
	"clockIn":             {scope: "attendance:write"},
	"clockOut":            {scope: "attendance:write"},
	"listCatalog":         {scope: "catalog:read"},
	"putCatalogItem":      {scope: "catalog:write"},
	"getWorkshopSettings": {scope: "workshop:read"},

	"createWebhook":            {scope: "webhooks:write"},
	"listWebhooks":             {scope: "webhooks:read"},
	"getWebhook":               {scope: "webhooks:read"},
	"patchWebhook":             {scope: "webhooks:write"},
	"deleteWebhook":            {scope: "webhooks:write"},
	"listWebhookDeliveries":    {scope: "webhooks:read"},
	"redeliverWebhookDelivery": {scope: "webhooks:write"},
	"listDeliveryAttempts":     {scope: "webhooks:read"},
	"listEvents":               {scope: "webhooks:read"},
}

// recordFixture makes the record a path parameter names, in location loc
// of organisation o (before holds the path parameters already made, so a
// step is made in its job), and returns its id and its updatedAt (0 when it
// has none). Records are written through the store and the operator, so
// that the free plan's organisation has them too.
type recordFixture func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, before map[string]string) (string, workshop.Micros)

// notRecords are path parameters that name no record of an organisation
// (PUT /v1/scheduler/catalog/{serviceCode} creates what it names).
var notRecords = map[string]bool{"serviceCode": true}

// recordFixtures has a fixture for every path parameter of the document:
// the matrix calls every operation on a record of the caller's own
// organisation, and (row "other org's record") on one of another.
var recordFixtures = map[string]recordFixture{
	"integrationId": func(t *testing.T, w *testWorld, o *testOrg, _ workshop.Location, _ map[string]string) (string, workshop.Micros) {
		in := w.integration(o.ID, "Matrix DMS")
		return in.ID, in.UpdatedAt
	},
	"jobId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, _ map[string]string) (string, workshop.Micros) {
		j := w.job(o.ID, loc.ID)
		return j.ID, j.UpdatedAt
	},
	"stepId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, before map[string]string) (string, workshop.Micros) {
		jobID := before["jobId"]
		if jobID == "" {
			jobID = w.job(o.ID, loc.ID).ID
		}
		st := w.step(o.ID, jobID)
		return st.ID, st.UpdatedAt
	},
	"technicianId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, _ map[string]string) (string, workshop.Micros) {
		tec, err := w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: loc.ID, Name: "Matrix technician", Skills: []string{"ev"}, WIPLimit: 2})
		if err != nil {
			t.Fatalf("create technician: %v", err)
		}
		return tec.ID, tec.UpdatedAt
	},
	"webhookId": func(t *testing.T, w *testWorld, o *testOrg, _ workshop.Location, _ map[string]string) (string, workshop.Micros) {
		wh := w.webhook(o.ID, "")
		return wh.ID, wh.UpdatedAt
	},
	"deliveryId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, before map[string]string) (string, workshop.Micros) {
		d := w.delivery(o.ID, loc.ID, before["webhookId"])
		return d.ID, d.UpdatedAt
	},
	// A service code is not a record: any code syncs an item.
	"serviceCode": func(*testing.T, *testWorld, *testOrg, workshop.Location, map[string]string) (string, workshop.Micros) {
		return "MATRIX-OIL", 0
	},
	"bayId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, _ map[string]string) (string, workshop.Micros) {
		bay, err := w.op.CreateBay(context.Background(), loc.ID, "Matrix bay", []string{"lift"}, nil)
		if err != nil {
			t.Fatalf("create bay: %v", err)
		}
		return bay.ID, bay.UpdatedAt
	},
	"absenceId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, _ map[string]string) (string, workshop.Micros) {
		tec, err := w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: loc.ID, Name: "Matrix absent", WIPLimit: 2})
		if err != nil {
			t.Fatalf("create technician: %v", err)
		}
		start := time.Now().Add(24 * time.Hour).Truncate(time.Second)
		a, err := w.st.CreateAbsence(context.Background(), store.Visibility{OrgID: o.ID},
			workshop.Absence{TechID: tec.ID, Start: start, End: start.Add(8 * time.Hour), Reason: "training"})
		if err != nil {
			t.Fatalf("create absence: %v", err)
		}
		return a.ID, 0
	},
	"windowId": func(t *testing.T, w *testWorld, o *testOrg, loc workshop.Location, before map[string]string) (string, workshop.Micros) {
		bayID := before["bayId"]
		if bayID == "" {
			bay, err := w.op.CreateBay(context.Background(), loc.ID, "Matrix serviced bay", nil, nil)
			if err != nil {
				t.Fatalf("create bay: %v", err)
			}
			bayID = bay.ID
		}
		start := time.Now().Add(24 * time.Hour).Truncate(time.Second)
		mw, err := w.st.CreateMaintenanceWindow(context.Background(), store.Visibility{OrgID: o.ID},
			workshop.MaintenanceWindow{BayID: bayID, Start: start, End: start.Add(2 * time.Hour), Reason: "lift inspection"})
		if err != nil {
			t.Fatalf("create maintenance window: %v", err)
		}
		return mw.ID, 0
	},
}

// locationBoundParams are the path parameters naming a record that belongs
// to one location: a location key naming one of another location is
// refused (404, as if it did not exist). Integrations belong to the
// organisation.
var locationBoundParams = map[string]bool{"jobId": true, "stepId": true, "technicianId": true, "bayId": true, "absenceId": true,
	"windowId": true}

// requestOverrides adjust the request of an operation whose plausible
// request (built from the document's schemas) is not enough for a 2xx.
var requestOverrides = map[string]func(t *testing.T, m *matrix, o *testOrg, loc workshop.Location, req *matrixRequest){
	// A tag of the location's governed list (testWorld.org sets it).
	"cancelJob": func(_ *testing.T, _ *matrix, _ *testOrg, _ workshop.Location, req *matrixRequest) {
		req.body["reasonTags"] = []string{"customer_declined"}
	},
	// A technician of the location; clock-out needs one clocked in.
	"clockIn": func(t *testing.T, m *matrix, _ *testOrg, loc workshop.Location, req *matrixRequest) {
		req.body["techId"] = matrixTechnician(t, m, loc)
		delete(req.body, "at")
	},
	"clockOut": func(t *testing.T, m *matrix, o *testOrg, loc workshop.Location, req *matrixRequest) {
		id := matrixTechnician(t, m, loc)
		if _, err := m.w.st.ClockIn(context.Background(), store.Visibility{OrgID: o.ID}, id, time.Now().Add(-time.Hour)); err != nil {
			t.Fatalf("clock in: %v", err)
		}
		req.body["techId"] = id
		delete(req.body, "at")
	},
	// A service of the location's catalog.
	"getAvailability": matrixQuoteServices,
	"getAvailabilityDays": func(t *testing.T, m *matrix, o *testOrg, loc workshop.Location, req *matrixRequest) {
		matrixQuoteServices(t, m, o, loc, req)
		req.query.Del("from")
	},
	"getCapacity": func(_ *testing.T, _ *matrix, _ *testOrg, _ workshop.Location, req *matrixRequest) {
		req.query.Del("from")
	},
	// A technician of the location, a valid span and reason.
	"createAbsence": func(t *testing.T, m *matrix, _ *testOrg, loc workshop.Location, req *matrixRequest) {
		start := time.Now().Add(48 * time.Hour).Truncate(time.Second)
		req.body["techId"], req.body["reason"] = matrixTechnician(t, m, loc), "vacation"
		req.body["start"], req.body["end"] = start.Format(time.RFC3339), start.Add(24*time.Hour).Format(time.RFC3339)
	},
	"createMaintenanceWindow": func(_ *testing.T, _ *matrix, _ *testOrg, _ workshop.Location, req *matrixRequest) {
		start := time.Now().Add(48 * time.Hour).Truncate(time.Second)
		req.body["start"], req.body["end"] = start.Format(time.RFC3339), start.Add(time.Hour).Format(time.RFC3339)
	},
	// No change: the plan as it is, and nothing it would do.
	"previewPlan": func(_ *testing.T, _ *matrix, _ *testOrg, _ workshop.Location, req *matrixRequest) {
		req.body["changes"], req.body["technicians"] = []any{}, []any{}
	},
	// A subscribable event; a loopback url where nothing listens (the test
	// server allows it), so that deliveries go nowhere.
	"createWebhook": func(_ *testing.T, _ *matrix, _ *testOrg, _ workshop.Location, req *matrixRequest) {
		req.body["url"], req.body["events"] = matrixHookURL, []string{"job.created"}
	},
}

// matrix is the world of TestAuthorizationMatrix.
type matrix struct {
	w          *testWorld
	a, b, free *testOrg
	keys       map[string]string // kind of caller -> bearer secret
}

// matrixRequest is one request of the matrix before it is sent.
type matrixRequest struct {
	pathValues map[string]string
	query      url.Values
	body       map[string]any // nil: no body
	header     http.Header
}

// request is a plausible request for op on records of o in its location
// loc: with a key of o that may call op, it succeeds (row "control").
func (m *matrix) request(t *testing.T, op apitest.Operation, o *testOrg, loc workshop.Location) *matrixRequest {
	t.Helper()
	req := &matrixRequest{pathValues: map[string]string{}, query: url.Values{}, header: http.Header{}}
	var updatedAt workshop.Micros // of the record the last path parameter names
	for _, name := range op.PathParams {
		fx := recordFixtures[name]
		if fx == nil {
			t.Fatalf("%s: no fixture for the path parameter %q: add one to recordFixtures", op, name)
		}
		req.pathValues[name], updatedAt = fx(t, m.w, o, loc, req.pathValues)
	}
	for _, p := range op.Parameters {
		if p.In != "query" {
			continue
		}
		switch {
		case p.Name == "locationId": // required with an org key, where there is one
			req.query.Set("locationId", loc.ID)
		case p.Required && p.Schema != nil:
			req.query.Set(p.Name, fmt.Sprint(apitest.Example(p.Schema.Value)))
		}
	}
	if op.Body != nil {
		body, _ := apitest.Example(op.Body).(map[string]any)
		if body == nil {
			body = map[string]any{}
		}
		if _, ok := op.Body.Properties["locationId"]; ok {
			body["locationId"] = loc.ID
		}
		if _, ok := op.Body.Properties["updatedAt"]; ok && updatedAt != 0 {
			body["updatedAt"] = updatedAt.String()
		}
		req.body = body
	}
	if f := requestOverrides[op.ID]; f != nil {
		f(t, m, o, loc, req)
	}
	return req
}

// apiRequest is req for op, sent with key.
func (m *matrix) apiRequest(t *testing.T, key string, op apitest.Operation, req *matrixRequest) apitest.Request {
	t.Helper()
	path, err := op.ExpandPath(req.pathValues)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.query) > 0 {
		path += "?" + req.query.Encode()
	}
	r := apitest.Request{Method: op.Method, Path: path, Key: key, Header: req.header}
	if req.body != nil {
		r.Body = req.body
	}
	return r
}

// typedParam is the first path or query parameter of op that is not a
// plain string (a number, a boolean, a date-time): one the generated
// wrapper must bind.
func typedParam(op apitest.Operation) (*openapi3.Parameter, bool) {
	for _, p := range op.Parameters {
		if p.In != "query" && p.In != "path" || p.Schema == nil || p.Schema.Value == nil {
			continue
		}
		if s := p.Schema.Value; !s.Type.Is("string") || s.Format == "date-time" || s.Format == "date" {
			return p, true
		}
	}
	return nil, false
}

// malformed sets op's typed parameter to a value of the wrong type.
func malformed(op apitest.Operation, req *matrixRequest) {
	p, _ := typedParam(op)
	if p.In == "path" {
		req.pathValues[p.Name] = "not-a-number"
		return
	}
	req.query.Set(p.Name, "not-a-number")
}

// authRow is one kind of caller of the matrix and what every operation
// answers it.
type authRow struct {
	name string
	// applies tells whether the row is about op at all.
	applies func(op apitest.Operation, rule opRule) bool
	// prepare returns the key and the request to send.
	prepare func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (key string, req *matrixRequest)
	// want is the expected status (0: any 2xx) and the problem codes accepted.
	want func(op apitest.Operation, rule opRule) (status int, codes []string)
	// detail, when set, must occur in the problem's detail.
	detail func(rule opRule) string
}

func always(apitest.Operation, opRule) bool { return true }

// locationBound tells whether op is about one location: it takes a
// locationId, or names a record of a location.
func locationBound(op apitest.Operation, _ opRule) bool {
	if slices.Contains(op.QueryParams, "locationId") {
		return true
	}
	if op.Body != nil && op.Body.Properties["locationId"] != nil {
		return true
	}
	return slices.ContainsFunc(op.PathParams, func(p string) bool { return locationBoundParams[p] })
}

// ownRequest is a request on the own records of a, with a key of kind.
func ownRequest(kind string) func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
	return func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
		return m.keys[kind], m.request(t, op, m.a, m.a.Locations[0])
	}
}

func status(s int, codes ...string) func(apitest.Operation, opRule) (int, []string) {
	return func(apitest.Operation, opRule) (int, []string) { return s, codes }
}

// authRows is the matrix's rows; later features add theirs (role change,
// MCP-only operations, ...).
var authRows = []authRow{
	{name: "full access key: 2xx (control)", applies: always, prepare: ownRequest("full"), want: status(0)},
	{name: "no key: missing_key", applies: always, prepare: ownRequest("none"), want: status(401, "missing_key")},
	{name: "unknown key: invalid_key", applies: always, prepare: ownRequest("unknown"), want: status(401, "invalid_key")},
	{name: "not a bearer key: invalid_key", applies: always,
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			req := m.request(t, op, m.a, m.a.Locations[0])
			req.header.Set("Authorization", "Basic "+m.keys["full"])
			return "", req
		}, want: status(401, "invalid_key")},
	{name: "MCP token: invalid_key", applies: always, prepare: ownRequest("mcp"), want: status(401, "invalid_key")},
	{name: "expired key: key_expired", applies: always, prepare: ownRequest("expired"), want: status(401, "key_expired")},
	{name: "revoked key: key_revoked", applies: always, prepare: ownRequest("revoked"), want: status(401, "key_revoked")},
	{name: "free plan: plan_upgrade_required", applies: always,
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			return m.keys["free"], m.request(t, op, m.free, m.free.Locations[0])
		},
		want: func(op apitest.Operation, rule opRule) (int, []string) {
			if rule.anyPlan {
				return 0, nil
			}
			return 403, []string{"plan_upgrade_required"}
		}},
	{name: "key without the scope: insufficient_scope",
		applies: func(op apitest.Operation, rule opRule) bool { return rule.scope != "" },
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			kind := "jobs:read"
			if rule.scope == "jobs:read" {
				kind = "attendance:read"
			}
			return m.keys[kind], m.request(t, op, m.a, m.a.Locations[0])
		},
		want: status(403, "insufficient_scope"), detail: func(rule opRule) string { return string(rule.scope) }},
	{name: "free plan, malformed parameter: plan_upgrade_required",
		applies: func(op apitest.Operation, rule opRule) bool { _, ok := typedParam(op); return ok && !rule.anyPlan },
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			req := m.request(t, op, m.free, m.free.Locations[0])
			malformed(op, req)
			return m.keys["free"], req
		},
		want: status(403, "plan_upgrade_required")},
	{name: "key without the scope, malformed parameter: insufficient_scope",
		applies: func(op apitest.Operation, rule opRule) bool { _, ok := typedParam(op); return ok && rule.scope != "" },
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			req := m.request(t, op, m.a, m.a.Locations[0])
			malformed(op, req)
			kind := "jobs:read"
			if rule.scope == "jobs:read" {
				kind = "attendance:read"
			}
			return m.keys[kind], req
		},
		want: status(403, "insufficient_scope")},
	{name: "other org's record: not_found",
		applies: func(op apitest.Operation, rule opRule) bool {
			return slices.ContainsFunc(op.PathParams, func(p string) bool { return !notRecords[p] })
		},
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			req := m.request(t, op, m.b, m.b.Locations[0])
			if op.Body != nil {
				if _, ok := op.Body.Properties["locationId"]; ok {
					req.body["locationId"] = m.a.Locations[0].ID // the caller's own location: only the record is foreign
				}
			}
			return m.keys["full"], req
		},
		want: status(404, "not_found")},
	{name: "location key, own location: 2xx (control)", applies: locationBound,
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			return m.keys["location0"], m.request(t, op, m.a, m.a.Locations[0])
		},
		want: status(0)},
	{name: "location key, other location: location_forbidden or not_found", applies: locationBound,
		prepare: func(t *testing.T, m *matrix, op apitest.Operation, rule opRule) (string, *matrixRequest) {
			req := m.request(t, op, m.a, m.a.Locations[1]) // records of the other location
			if slices.Contains(op.QueryParams, "locationId") {
				req.query.Set("locationId", m.a.Locations[1].ID)
			}
			return m.keys["location0"], req
		},
		want: func(op apitest.Operation, rule opRule) (int, []string) {
			if slices.ContainsFunc(op.PathParams, func(p string) bool { return locationBoundParams[p] }) {
				return 404, []string{"not_found", "location_forbidden"}
			}
			return 403, []string{"location_forbidden"}
		}},
}

func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	ops, err := apitest.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if _, ok := operationRules[op.ID]; !ok {
			t.Errorf("%s (%s) has no row in operationRules: say which scope and plan it needs", op, op.ID)
		}
	}
	t.Run("descriptions name the scope", func(t *testing.T) {
		// The document tells callers which scope each operation needs; it
		// must say what the server enforces.
		needs := regexp.MustCompile("Needs `([a-z]+:[a-z]+)`")
		for _, op := range ops {
			rule := operationRules[op.ID]
			var got workshop.Scope
			if m := needs.FindStringSubmatch(op.Op.Description); m != nil {
				got = workshop.Scope(m[1])
			}
			if got != rule.scope {
				t.Errorf("%s: the description names scope %q, the rule is %q", op, got, rule.scope)
			}
		}
	})
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		ctx := context.Background()
		m := &matrix{w: w, a: w.org("Alpha Motors", workshop.PlanPro, 2), b: w.org("Beta Cars", workshop.PlanPro, 1),
			free: w.org("Free Garage", workshop.PlanFree, 1)}
		revoked := w.key(operator.KeyRequest{UserID: m.a.Owner.ID})
		if _, err := w.op.RevokeKey(ctx, revoked.ID); err != nil {
			t.Fatal(err)
		}
		token, err := w.op.CreateMCPToken(ctx, m.a.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		m.keys = map[string]string{
			"full":            m.a.Key.Key,
			"none":            "",
			"unknown":         workshop.NewSecret(workshop.APIKeyPrefix),
			"mcp":             token.Token,
			"expired":         w.expiredKey(m.a),
			"revoked":         revoked.Key,
			"free":            m.free.Key.Key,
			"jobs:read":       w.key(operator.KeyRequest{UserID: m.a.Owner.ID, Scopes: "jobs:read"}).Key,
			"attendance:read": w.key(operator.KeyRequest{UserID: m.a.Owner.ID, Scopes: "attendance:read"}).Key,
			"location0":       m.a.locationKey(w, 0).Key,
		}
		srv := startServer(t, db.URL)

		for _, row := range authRows {
			t.Run(row.name, func(t *testing.T) {
				ran := 0
				for _, op := range ops {
					rule, ok := operationRules[op.ID]
					if !ok || !row.applies(op, rule) {
						continue
					}
					ran++
					t.Run(op.ID, func(t *testing.T) {
						key, mreq := row.prepare(t, m, op, rule)
						req := m.apiRequest(t, key, op, mreq)
						r := apitest.Call(t, srv.URL, req)
						wantStatus, codes := row.want(op, rule)
						if wantStatus == 0 {
							if r.Status < 200 || r.Status > 299 {
								t.Errorf("%s: got %d, want 2xx; body %s", op, r.Status, r.Body)
							}
							return
						}
						p := r.Problem()
						if r.Status != wantStatus || !slices.Contains(codes, string(p.Code)) {
							t.Errorf("%s: got %d %q, want %d %v; body %s", op, r.Status, p.Code, wantStatus, codes, r.Body)
						}
						if row.detail != nil && !strings.Contains(p.Detail, row.detail(rule)) {
							t.Errorf("%s: detail %q does not name %q", op, p.Detail, row.detail(rule))
						}
						if wantStatus == 401 && !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
							t.Errorf("%s: WWW-Authenticate: got %q, want Bearer", op, r.Header.Get("WWW-Authenticate"))
						}
					})
				}
				if ran == 0 {
					t.Skip("no operation of the document is concerned yet")
				}
			})
		}
	})
}

// TestRoleChangeNarrowsKeys: a key keeps only the scopes its user's
// current role allows, checked on every request (contract section 3) and
// on every process. Nothing in the service changes a role yet (the
// application's organisation pages will), so the test changes it in SQL,
// as a write by hand that the servers must see as well.
func TestRoleChangeNarrowsKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Role Motors", workshop.PlanPro, 1)
		admin, err := w.op.CreateUser(t.Context(), a.ID, "admin@example.com", workshop.RoleAdmin, false)
		if err != nil {
			t.Fatal(err)
		}
		key := w.key(operator.KeyRequest{UserID: admin.ID})
		servers := []*apitest.Server{startServer(t, db.URL), startServer(t, db.URL)}
		scopes := func(srv *apitest.Server) []string {
			t.Helper()
			r, err := apitest.Client(t, srv.URL, key.Key).GetMeWithResponse(t.Context())
			if err != nil || r.JSON200 == nil {
				t.Fatalf("GetMe: %v, status %d, body %s", err, r.StatusCode(), r.Body)
			}
			var got []string
			for _, s := range r.JSON200.Scopes {
				got = append(got, string(s))
			}
			slices.Sort(got)
			return got
		}
		for _, srv := range servers {
			if got := scopes(srv); !slices.Contains(got, "integrations:read") {
				t.Fatalf("an admin's key: scopes %v, want integrations:read among them", got)
			}
		}
		query := `UPDATE users SET role = 'technician' WHERE id = ?`
		if db.Name == "postgres" {
			query = strings.Replace(query, "?", "$1", 1)
		}
		if _, err := storetest.RawDB(t, db.URL).ExecContext(t.Context(), query, admin.ID); err != nil {
			t.Fatal(err)
		}
		for i, srv := range servers {
			if got, want := scopes(srv), []string{"attendance:read", "jobs:read"}; !slices.Equal(got, want) {
				t.Errorf("server %d after the demotion: scopes %v, want %v", i+1, got, want)
			}
			r := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/integrations", Key: key.Key})
			wantProblem(t, r, 403, "insufficient_scope", "")
		}
	})
}

// TestRevocationAcrossProcesses revokes a key with the operator command
// while two servers run on one database: the very next request on either
// is key_revoked.
func TestRevocationAcrossProcesses(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		victim := w.key(operator.KeyRequest{UserID: a.Owner.ID})
		s1, s2 := startServer(t, db.URL), startServer(t, db.URL)
		for _, s := range []*apitest.Server{s1, s2} {
			r := apitest.Call(t, s.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: victim.Key})
			if r.Status != 200 {
				t.Fatalf("before the revocation: got %d, want 200; body %s", r.Status, r.Body)
			}
		}
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"admin", "key", "revoke", victim.ID, "--database", db.URL}, envOf(nil), &stdout, &stderr); code != 0 {
			t.Fatalf("admin key revoke: exit %d, stderr %s", code, stderr.String())
		}
		for i, s := range []*apitest.Server{s1, s2} {
			r := apitest.Call(t, s.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: victim.Key})
			wantProblem(t, r, 401, "key_revoked", "")
			if t.Failed() {
				t.Logf("server %d", i+1)
			}
		}
		// The other keys of the org are untouched.
		if r := apitest.Call(t, s2.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: a.Key.Key}); r.Status != 200 {
			t.Errorf("another key after the revocation: got %d, want 200", r.Status)
		}
	})
}

// matrixTechnician makes a technician of the location.
// matrixQuoteServices quotes a service of the location's catalog.
func matrixQuoteServices(t *testing.T, m *matrix, o *testOrg, loc workshop.Location, req *matrixRequest) {
	it := workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: o.ID, LocationID: loc.ID, ServiceCode: "MATRIX",
		Name: "Matrix service", EstimatedDuration: 30, RequiredSkills: []string{}, IsActive: true}
	if _, err := m.w.st.PutCatalogItem(context.Background(), it); err != nil {
		t.Fatalf("put catalog item: %v", err)
	}
	req.query.Set("serviceCodes", "MATRIX")
}

func matrixTechnician(t *testing.T, m *matrix, loc workshop.Location) string {
	t.Helper()
	tech, err := m.w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: loc.ID, Name: "Matrix tech", WIPLimit: 2})
	if err != nil {
		t.Fatalf("create technician: %v", err)
	}
	return tech.ID
}
