package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// fakeReader records the reads and answers them with a fixed response.
type fakeReader struct {
	mu     sync.Mutex
	reads  []string // path?query
	who    []*workshop.Principal
	status int
	body   string
}

func (f *fakeReader) Read(_ context.Context, p *workshop.Principal, path string, query url.Values) (int, []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, path+"?"+query.Encode())
	f.who = append(f.who, p)
	return f.status, []byte(f.body)
}

var testPrincipal = &workshop.Principal{KeyID: "key_test", Kind: workshop.KindMCPToken, OrgID: "org_test", UserID: "usr_test",
	Role: workshop.RoleOwner, PlanTier: workshop.PlanPro, Scopes: []workshop.Scope{"jobs:read"}}

// connect serves srv over the SDK's in-memory transports and returns a
// client session.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newTestServer(t *testing.T, r Reader, caller Caller) *mcp.ClientSession {
	t.Helper()
	if caller == nil {
		caller = func(context.Context) (*workshop.Principal, error) { return testPrincipal, nil }
	}
	srv, err := New(r, caller, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, srv)
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content has %d items, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

var wantTools = []string{"list_jobs", "get_job", "get_job_detail", "get_board_summary", "list_cancel_reason_tags",
	"list_technicians", "list_bays", "list_catalog", "get_workshop_settings", "list_attendance", "get_plan", "get_availability"}

// TestToolsAreTheRESTReads: exactly the twelve tools, read-only, each with the
// parameters of its REST GET as its input schema and the GET's 200 body as
// its output schema.
func TestToolsAreTheRESTReads(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*openapi3.Operation{}
	params := map[string][]*openapi3.ParameterRef{}
	for _, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if method == http.MethodGet {
				ops[op.OperationID] = op
				params[op.OperationID] = append(slices.Clone(item.Parameters), op.Parameters...)
			}
		}
	}
	cs := newTestServer(t, &fakeReader{status: 200, body: "{}"}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := slices.Sorted(slices.Values(wantTools)); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, wantTools)
	}
	for _, tl := range res.Tools {
		spec := tools[slices.IndexFunc(tools, func(s toolSpec) bool { return s.name == tl.Name })]
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint ||
			a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, closed world, not destructive", tl.Name, a)
		}
		if tl.Description == "" || tl.Title == "" {
			t.Errorf("%s: no description or title", tl.Name)
		}
		in, _ := tl.InputSchema.(map[string]any)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v, want a closed object", tl.Name, in)
		}
		props, _ := in["properties"].(map[string]any)
		var got, want []string
		for n, p := range props {
			got = append(got, n)
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s: argument %s has no description", tl.Name, n)
			}
		}
		var wantRequired []string
		for _, p := range params[spec.operationID] {
			if p.Value.In == openapi3.ParameterInHeader {
				continue // HTTP's own (If-None-Match): a tool call has no headers
			}
			want = append(want, p.Value.Name)
			if p.Value.Required || (spec.locationRequired && p.Value.Name == "locationId") {
				wantRequired = append(wantRequired, p.Value.Name)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: arguments %v, want the parameters of %s: %v", tl.Name, got, spec.operationID, want)
		}
		var required []string
		if r, ok := in["required"].([]any); ok {
			for _, x := range r {
				required = append(required, x.(string))
			}
		}
		slices.Sort(wantRequired)
		if !slices.Equal(required, wantRequired) {
			t.Errorf("%s: required %v, want %v", tl.Name, required, wantRequired)
		}
		out, _ := tl.OutputSchema.(map[string]any)
		if out["type"] != "object" {
			t.Errorf("%s: output schema type %v, want object", tl.Name, out["type"])
		}
		data, _ := json.Marshal(out)
		for _, openAPIOnly := range []string{`"$ref"`, `"nullable"`, `"example"`, `"x-go-type"`} {
			if strings.Contains(string(data), openAPIOnly) {
				t.Errorf("%s: output schema still has %s: %s", tl.Name, openAPIOnly, data)
			}
		}
		if ops[spec.operationID] == nil {
			t.Errorf("%s: %s is not a GET of the document", tl.Name, spec.operationID)
		}
	}
}

// TestArguments: arguments become the REST read's path and query, values as
// they are; what the read cannot take is refused before it runs.
func TestArguments(t *testing.T) {
	tests := []struct {
		tool    string
		args    any
		read    string // the read made; "" when none
		errText string // the tool error's text contains it
	}{
		{"get_job", map[string]any{"jobId": "job_1"}, "/v1/scheduler/jobs/job_1?", ""},
		{"get_job", map[string]any{"jobId": "a/b c"}, "/v1/scheduler/jobs/a%2Fb%20c?", ""},
		{"get_job_detail", map[string]any{"jobId": "job_1"}, "/v1/scheduler/jobs/job_1/detail?", ""},
		{"get_job", map[string]any{}, "", "jobId is required. (code invalid_parameter, field jobId)"},
		{"get_job", map[string]any{"jobId": nil}, "", "jobId is required."},
		{"list_jobs", nil, "/v1/scheduler/jobs?", ""},
		{"list_jobs", map[string]any{"limit": 10, "status": "arrived,ready", "cursor": nil},
			"/v1/scheduler/jobs?limit=10&status=arrived%2Cready", ""},
		{"list_jobs", map[string]any{"limit": "ten"}, "/v1/scheduler/jobs?limit=ten", ""}, // the read says what is wrong
		{"list_jobs", map[string]any{"limit": []int{1}}, "", "limit must be a single integer value. (code invalid_parameter, field limit)"},
		{"list_jobs", map[string]any{"jobId": "x"}, "", `"jobId" is not an argument of list_jobs; it takes cursor, externalKey, limit, locationId, status, updatedSince.`},
		{"get_workshop_settings", map[string]any{"locationId": "x"}, "", `get_workshop_settings takes no arguments; "locationId" is not one.`},
		{"get_board_summary", map[string]any{"locationId": "loc_1"}, "/v1/scheduler/board?locationId=loc_1", ""},
		{"list_attendance", map[string]any{"from": "2026-11-01", "to": "2026-11-30", "techId": "tec_1"},
			"/v1/scheduler/attendance?from=2026-11-01&techId=tec_1&to=2026-11-30", ""},
		{"get_plan", map[string]any{"locationId": "loc_1", "date": "2026-11-24"}, "/v1/scheduler/plan?date=2026-11-24&locationId=loc_1", ""},
		{"get_availability", map[string]any{"locationId": "loc_1", "serviceCodes": []string{"OIL", "BRAKES"}},
			"/v1/scheduler/availability?locationId=loc_1&serviceCodes=OIL%2CBRAKES", ""},
		{"get_availability", map[string]any{"locationId": "loc_1", "serviceCodes": []any{"OIL", 3}}, "",
			"serviceCodes must be a list of strings. (code invalid_parameter, field serviceCodes)"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			r := &fakeReader{status: 200, body: `{"data":[],"nextCursor":null}` + "\n"}
			cs := newTestServer(t, r, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if tc.errText != "" {
				if !res.IsError || !strings.Contains(textOf(t, res), tc.errText) || len(r.reads) != 0 {
					t.Errorf("got %+v (text %q), reads %v; want a tool error with %q and no read", res, textOf(t, res), r.reads, tc.errText)
				}
				return
			}
			if res.IsError || !slices.Equal(r.reads, []string{tc.read}) {
				t.Fatalf("reads %v (error %v: %q), want %q", r.reads, res.IsError, textOf(t, res), tc.read)
			}
			if r.who[0] != testPrincipal {
				t.Errorf("read as %+v, want the caller", r.who[0])
			}
			if got := textOf(t, res); got != `{"data":[],"nextCursor":null}` {
				t.Errorf("text %q, want the body without its newline", got)
			}
			if !reflect.DeepEqual(res.StructuredContent, map[string]any{"data": []any{}, "nextCursor": nil}) {
				t.Errorf("structured content %#v, want the body decoded", res.StructuredContent)
			}
		})
	}
}

// TestErrors: a REST problem is a tool error in the problem's words; a
// caller that is no longer valid is one too.
func TestErrors(t *testing.T) {
	problem := `{"type":"x","title":"Validation failed","status":422,"code":"validation_failed","detail":"The request is invalid.",` +
		`"field":"from","errors":[{"field":"from","code":"invalid","message":"from must be a date."}],"requestId":"req_1"}`
	cs := newTestServer(t, &fakeReader{status: 422, body: problem}, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_attendance", Arguments: map[string]any{"from": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "The request is invalid. from must be a date. (code validation_failed, field from, requestId req_1)"
	if !res.IsError || textOf(t, res) != want || res.StructuredContent != nil {
		t.Errorf("got %+v %q, want a tool error %q without structured content", res, textOf(t, res), want)
	}

	r := &fakeReader{status: 200, body: "{}"}
	revoked := func(context.Context) (*workshop.Principal, error) {
		return nil, workshop.Errorf(workshop.CodeKeyRevoked, "The key was revoked at 2026-11-21T10:00:00.000000Z.")
	}
	cs = newTestServer(t, r, revoked)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_workshop_settings"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "The key was revoked at 2026-11-21T10:00:00.000000Z. (code key_revoked)"; !res.IsError || textOf(t, res) != want || len(r.reads) != 0 {
		t.Errorf("got %q, reads %v; want %q and no read", textOf(t, res), r.reads, want)
	}

	broken := func(context.Context) (*workshop.Principal, error) { return nil, errors.New("database down") }
	cs = newTestServer(t, r, broken)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_workshop_settings"}); err == nil {
		t.Error("an internal failure to find the caller: want a JSON-RPC error")
	}
}

func TestSchemaConversion(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(`
openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Stamp: {type: string, format: date-time, example: x, x-go-type: T}
    Thing:
      type: object
      required: [a]
      properties:
        a: {$ref: '#/components/schemas/Stamp'}
        b: {type: string, nullable: true, description: B., enum: [x, y]}
        c: {type: integer, minimum: 0, exclusiveMinimum: true}
        d: {allOf: [{$ref: '#/components/schemas/Stamp'}], nullable: true}
        e: {type: array, items: {$ref: '#/components/schemas/Stamp'}}
    Loop:
      type: object
      properties:
        next: {$ref: '#/components/schemas/Loop'}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := newConverter(doc).component("#/components/schemas/Thing")
	if err != nil {
		t.Fatal(err)
	}
	stamp := map[string]any{"type": "string", "format": "date-time"}
	want := map[string]any{
		"type": "object", "required": []any{"a"},
		"properties": map[string]any{
			"a": stamp,
			"b": map[string]any{"description": "B.", "anyOf": []any{map[string]any{"type": "string", "enum": []any{"x", "y"}}, map[string]any{"type": "null"}}},
			"c": map[string]any{"type": "integer", "exclusiveMinimum": float64(0)},
			"d": map[string]any{"anyOf": []any{map[string]any{"allOf": []any{stamp}}, map[string]any{"type": "null"}}},
			"e": map[string]any{"type": "array", "items": stamp},
		},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("converted\n got %s\nwant %s", g, w)
	}
	if _, err := newConverter(doc).component("#/components/schemas/Loop"); err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Errorf("a recursive schema: got %v, want an error", err)
	}
}
