package main

// End-to-end tests of the read-only AI connection: the SDK's MCP client
// against /mcp of the real server (and `workshop mcp` over stdio), each
// tool's result compared with the REST read of the same data made with an
// API key of the same user.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

var mcpToolNames = []string{"get_availability", "get_board_summary", "get_job", "get_job_detail", "get_plan", "get_workshop_settings",
	"list_attendance", "list_bays", "list_cancel_reason_tags", "list_catalog", "list_jobs", "list_technicians"}

// bearer adds the Authorization header to every request; hosts, when set,
// sends request i to hosts[i % len(hosts)] (several `serve` processes).
type bearer struct {
	token string
	hosts []string
	n     atomic.Int64
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if len(b.hosts) > 0 {
		r.URL.Host = b.hosts[int(b.n.Add(1)-1)%len(b.hosts)]
		r.Host = r.URL.Host
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect connects the SDK's client to base/mcp with the token.
func mcpConnect(t *testing.T, base string, rt *bearer) (*mcp.ClientSession, error) {
	t.Helper()
	transport := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: rt, Timeout: 30 * time.Second},
		MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "workshop-e2e", Version: "1"}, nil).Connect(t.Context(), transport, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// mcpFixtures is an organisation with something in every read: two
// locations, technicians, bays, a catalog item, a job with steps (one in
// progress), attendance.
type mcpFixtures struct {
	org   *testOrg
	token operator.TokenOut // the owner's MCP token
	jobID string
	techs []workshop.Technician
}

func newMCPFixtures(t *testing.T, w *testWorld, base string) *mcpFixtures {
	t.Helper()
	ctx := context.Background()
	f := &mcpFixtures{org: w.org("MCP Motors", workshop.PlanPro, 2)}
	loc := f.org.Locations[0].ID
	for i, name := range []string{"Ana", "Ben"} {
		tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: f.org.Locations[i].ID, Name: name, Skills: []string{"oil", "brakes"}, WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		f.techs = append(f.techs, tech)
	}
	bay, err := w.op.CreateBay(ctx, loc, "Bay 1", []string{"lift"}, []string{"OIL"})
	if err != nil {
		t.Fatal(err)
	}
	key := f.org.Key.Key
	call := func(method, path, body string, want int) map[string]any {
		t.Helper()
		r := apitest.Call(t, base, apitest.Request{Method: method, Path: path, Key: key, Body: body})
		if r.Status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
		}
		var m map[string]any
		r.Decode(t, &m)
		return m
	}
	call("PUT", "/v1/scheduler/catalog/OIL", `{"locationId":"`+loc+`","name":"Oil change","estimatedDuration":45,"requiredSkills":["oil"]}`, 201)
	job := call("POST", "/v1/scheduler/jobs", `{"locationId":"`+loc+`","vehiclePlate":"B-MC 1","vehicleMake":"Volkswagen",`+
		`"vehicleModel":"Golf","promiseTime":"2030-01-01T16:00:00+01:00","source":"phone"}`, 201)
	f.jobID = job["id"].(string)
	step := call("POST", "/v1/scheduler/jobs/"+f.jobID+"/steps", `{"label":"Oil change","estimatedDuration":45}`, 201)
	call("POST", "/v1/scheduler/jobs/"+f.jobID+"/steps", `{"label":"Brakes","phase":1,"estimatedDuration":60}`, 201)
	call("PATCH", "/v1/scheduler/jobs/"+f.jobID+"/steps/"+step["id"].(string),
		fmt.Sprintf(`{"updatedAt":%q,"techIds":[%q],"bayId":%q,"status":"in_progress"}`, step["updatedAt"], f.techs[0].ID, bay.ID), 200)
	call("POST", "/v1/scheduler/jobs", `{"locationId":"`+f.org.Locations[1].ID+`","arrivalTime":null}`, 201)
	call("POST", "/v1/scheduler/attendance/clock-in", `{"techId":"`+f.techs[0].ID+`"}`, 201)
	token, err := w.op.CreateMCPToken(ctx, f.org.Owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.token = token
	return f
}

// mcpCase is a tool call and the REST read it must equal.
type mcpCase struct {
	tool string
	args map[string]any
	rest string // path and query of the REST GET
}

func (f *mcpFixtures) cases() []mcpCase {
	loc := f.org.Locations[0].ID
	return []mcpCase{
		{"list_jobs", nil, "/v1/scheduler/jobs"},
		{"list_jobs", map[string]any{"locationId": loc, "status": "in_progress,arrived", "limit": 1}, "/v1/scheduler/jobs?locationId=" + loc + "&status=in_progress,arrived&limit=1"},
		{"get_job", map[string]any{"jobId": f.jobID}, "/v1/scheduler/jobs/" + f.jobID},
		{"get_job_detail", map[string]any{"jobId": f.jobID}, "/v1/scheduler/jobs/" + f.jobID + "/detail"},
		{"get_board_summary", map[string]any{"locationId": loc}, "/v1/scheduler/board?locationId=" + loc},
		{"list_cancel_reason_tags", map[string]any{"locationId": loc}, "/v1/scheduler/cancel-reason-tags?locationId=" + loc},
		{"list_technicians", nil, "/v1/scheduler/technicians"},
		{"list_technicians", map[string]any{"locationId": f.org.Locations[1].ID}, "/v1/scheduler/technicians?locationId=" + f.org.Locations[1].ID},
		{"list_bays", map[string]any{"limit": 10}, "/v1/scheduler/bays?limit=10"},
		{"list_catalog", nil, "/v1/scheduler/catalog"},
		{"get_workshop_settings", nil, "/v1/scheduler/workshop"},
		{"list_attendance", map[string]any{"techId": f.techs[0].ID}, "/v1/scheduler/attendance?techId=" + f.techs[0].ID},
	}
}

// volatile are the members that differ from one read to the next: when
// the board was made, and a projection made from the current time.
func stripVolatile(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "generatedAt")
		delete(x, "projectedCompletion")
		delete(x, "projectedEnd")
		delete(x, "slackMinutes")
		delete(x, "atRisk")
		for _, e := range x {
			stripVolatile(e)
		}
	case []any:
		for _, e := range x {
			stripVolatile(e)
		}
	}
	return v
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// checkToolEqualsREST calls the tool and reads the same over REST before
// and after: the tool's text is the REST body byte for byte (one of the
// two reads, time may pass between them) and its structured content the
// REST JSON; for reads that depend on the time, equal but for those members.
func checkToolEqualsREST(t *testing.T, cs *mcp.ClientSession, base, key string, c mcpCase) {
	t.Helper()
	before := apitest.Call(t, base, apitest.Request{Method: "GET", Path: c.rest, Key: key})
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		t.Fatalf("%s: %v", c.tool, err)
	}
	after := apitest.Call(t, base, apitest.Request{Method: "GET", Path: c.rest, Key: key})
	if before.Status != 200 {
		t.Fatalf("GET %s: %d %s", c.rest, before.Status, before.Body)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: error %v, content %+v", c.tool, c.args, res.IsError, res.Content)
	}
	text := []byte(res.Content[0].(*mcp.TextContent).Text)
	structured, _ := json.Marshal(res.StructuredContent)
	switch c.tool {
	case "get_board_summary", "get_job_detail":
		want := stripVolatile(decodeJSON(t, before.Body))
		if got := stripVolatile(decodeJSON(t, text)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v text:\n got %s\nwant %s", c.tool, c.args, text, before.Body)
		}
		if got := stripVolatile(decodeJSON(t, structured)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v structured content:\n got %s\nwant %s", c.tool, c.args, structured, before.Body)
		}
	default:
		b, a := bytes.TrimSuffix(before.Body, []byte("\n")), bytes.TrimSuffix(after.Body, []byte("\n"))
		if !bytes.Equal(text, b) && !bytes.Equal(text, a) {
			t.Errorf("%s %v text is not the REST body:\n got %s\nwant %s", c.tool, c.args, text, b)
		}
		if got := decodeJSON(t, structured); !reflect.DeepEqual(got, decodeJSON(t, b)) && !reflect.DeepEqual(got, decodeJSON(t, a)) {
			t.Errorf("%s %v structured content is not the REST JSON:\n got %s\nwant %s", c.tool, c.args, structured, b)
		}
	}
}

// toolError calls a tool that must fail and returns its text.
func toolError(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError || len(res.Content) != 1 || res.StructuredContent != nil {
		t.Fatalf("%s %v: got %+v, want a tool error", tool, args, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestMCPTools(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		srv := startServer(t, db.URL)
		f := newMCPFixtures(t, w, srv.URL)
		ctx, token := context.Background(), f.token
		cs, err := mcpConnect(t, srv.URL, &bearer{token: token.Token})
		if err != nil {
			t.Fatal(err)
		}

		init := cs.InitializeResult()
		if init.ProtocolVersion == "" || init.ServerInfo == nil || init.ServerInfo.Name != "workshop" || init.Capabilities.Tools == nil {
			t.Errorf("initialize result %+v, want protocolVersion, serverInfo.name workshop and the tools capability", init)
		}
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
			in, _ := tl.InputSchema.(map[string]any)
			out, _ := tl.OutputSchema.(map[string]any)
			if in["type"] != "object" || out["type"] != "object" || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint ||
				!tl.Annotations.IdempotentHint || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
				t.Errorf("tool %s: input %v, output type %v, annotations %+v; want object schemas, read-only, idempotent, closed world",
					tl.Name, in, out["type"], tl.Annotations)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, mcpToolNames) {
			t.Errorf("tools %v, want exactly %v", names, mcpToolNames)
		}

		for _, c := range f.cases() {
			checkToolEqualsREST(t, cs, srv.URL, f.org.Key.Key, c)
		}

		// REST errors are tool errors, in the REST API's words.
		if text := toolError(t, cs, "get_job", map[string]any{"jobId": "job_missing"}); !strings.Contains(text, "code not_found") ||
			!strings.Contains(text, "requestId req_") {
			t.Errorf("missing job: %q, want not_found with the request id", text)
		}
		if text := toolError(t, cs, "get_board_summary", nil); !strings.Contains(text, "locationId") || !strings.Contains(text, "code invalid_parameter") {
			t.Errorf("board without a location: %q", text)
		}
		if text := toolError(t, cs, "list_jobs", map[string]any{"limit": 500}); !strings.Contains(text, "field limit") {
			t.Errorf("limit 500: %q", text)
		}
		other := w.org("Other Garage", workshop.PlanPro, 1)
		otherJob := w.job(other.ID, other.Locations[0].ID)
		if text := toolError(t, cs, "get_job", map[string]any{"jobId": otherJob.ID}); !strings.Contains(text, "code not_found") {
			t.Errorf("another organisation's job: %q, want not_found", text)
		}
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "cancel_job", Arguments: map[string]any{"jobId": f.jobID}}); err == nil {
			t.Error("cancel_job: want an unknown tool")
		}

		// A token acts as its user, with that user's role: a technician reads
		// jobs and attendance only.
		techUser, err := w.op.CreateUser(ctx, f.org.ID, "tech@example.com", workshop.RoleTechnician, true)
		if err != nil {
			t.Fatal(err)
		}
		techToken, err := w.op.CreateMCPToken(ctx, techUser.ID)
		if err != nil {
			t.Fatal(err)
		}
		techKey := w.key(operator.KeyRequest{UserID: techUser.ID})
		tcs, err := mcpConnect(t, srv.URL, &bearer{token: techToken.Token})
		if err != nil {
			t.Fatal(err)
		}
		checkToolEqualsREST(t, tcs, srv.URL, techKey.Key, mcpCase{"get_job", map[string]any{"jobId": f.jobID}, "/v1/scheduler/jobs/" + f.jobID})
		if text := toolError(t, tcs, "list_technicians", nil); !strings.Contains(text, "technicians:read") || !strings.Contains(text, "code insufficient_scope") {
			t.Errorf("a technician's token listing technicians: %q, want insufficient_scope naming technicians:read", text)
		}

		// Revocation holds on the very next request.
		if _, err := w.op.RevokeKey(ctx, techToken.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := tcs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_jobs"}); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("a call after revocation: %v, want HTTP 401", err)
		}
	})
}

// TestMCPAuthentication: /mcp takes MCP tokens only; anything else is a
// 401 problem with WWW-Authenticate: Bearer, and an MCP token at /v1 is 401.
func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		ctx := context.Background()
		revoked, err := w.op.CreateMCPToken(ctx, a.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.op.RevokeKey(ctx, revoked.ID); err != nil {
			t.Fatal(err)
		}
		valid, err := w.op.CreateMCPToken(ctx, a.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, db.URL)
		initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
			`"clientInfo":{"name":"e2e","version":"1"}}}`
		accept := http.Header{"Accept": {"application/json, text/event-stream"}}
		for _, tc := range []struct{ name, key, code string }{
			{"no token", "", "missing_key"},
			{"an API key", a.Key.Key, "invalid_key"},
			{"an unknown token", workshop.NewSecret(workshop.MCPTokenPrefix), "invalid_key"},
			{"a revoked token", revoked.Token, "key_revoked"},
		} {
			for _, method := range []string{"POST", "GET", "DELETE"} {
				r := apitest.Call(t, srv.URL, apitest.Request{Method: method, Path: "/mcp", Key: tc.key, Body: initialize, Header: accept})
				if r.Status != http.StatusUnauthorized || string(r.Problem().Code) != tc.code || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s %s: %d %s %v, want 401 %s with WWW-Authenticate: Bearer", method, tc.name, r.Status, r.Body, r.Header, tc.code)
				}
			}
		}
		r := apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/mcp", Key: valid.Token, Body: initialize, Header: accept})
		if r.Status != 200 || !strings.Contains(string(r.Body), `"serverInfo"`) {
			t.Errorf("initialize with a valid token: %d %s", r.Status, r.Body)
		}
		// A method the server does not have is JSON-RPC's method not found.
		r = apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/mcp", Key: valid.Token,
			Body: `{"jsonrpc":"2.0","id":9,"method":"tasks/list","params":{}}`, Header: accept})
		if r.Status != 200 || !strings.Contains(string(r.Body), `"id":9,"error":{"code":-32601,`) {
			t.Errorf("an unknown method: %d %s, want 200 with the JSON-RPC error -32601", r.Status, r.Body)
		}
		r = apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/scheduler/jobs", Key: valid.Token})
		if r.Status != http.StatusUnauthorized || r.Problem().Code != "invalid_key" {
			t.Errorf("an MCP token at /v1: %d %s, want 401 invalid_key", r.Status, r.Body)
		}
	})
}

// TestMCPStateless: no session is kept, so every request may go to another
// `serve` process on the same database.
func TestMCPStateless(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		one, two := startServer(t, db.URL), startServer(t, db.URL)
		f := newMCPFixtures(t, w, one.URL)
		token := f.token
		rt := &bearer{token: token.Token, hosts: []string{one.Addr, two.Addr}}
		cs, err := mcpConnect(t, one.URL, rt)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range f.cases()[:4] {
			checkToolEqualsREST(t, cs, two.URL, f.org.Key.Key, c)
		}
		if rt.n.Load() < 5 {
			t.Errorf("%d requests, want them spread over both servers", rt.n.Load())
		}
	})
}

// TestMCPStdio: `workshop mcp --token` serves the same tools over stdio,
// checking the token at start and on every call.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		srv := startServer(t, db.URL)
		f := newMCPFixtures(t, w, srv.URL)
		ctx, token := context.Background(), f.token
		noEnv := func(string) string { return "" }

		// A bad token fails at start, saying why.
		var stdout, stderr bytes.Buffer
		for _, tc := range []struct{ token, want string }{
			{workshop.NewSecret(workshop.MCPTokenPrefix), "invalid_key"},
			{f.org.Key.Key, "an MCP token starts with wsm_"},
			{"", "give the MCP token"},
		} {
			stderr.Reset()
			code := run(ctx, []string{"mcp", "--token", tc.token, "--database", db.URL}, noEnv, &stdout, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("mcp --token %.8q: exit %d, stderr %q; want a failure with %q", tc.token, code, stderr.String(), tc.want)
			}
		}

		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		var logs bytes.Buffer
		go func() {
			err := mcpCmd(ctx, []string{"--token", token.Token, "--database", db.URL}, noEnv, inR, outW, &logs)
			outW.Close()
			done <- err
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil).Connect(t.Context(),
			&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(list.Tools) != len(mcpToolNames) {
			t.Fatalf("tools/list over stdio: %v %+v", err, list)
		}
		for _, c := range f.cases() {
			checkToolEqualsREST(t, cs, srv.URL, f.org.Key.Key, c)
		}
		if _, err := w.op.RevokeKey(ctx, token.ID); err != nil {
			t.Fatal(err)
		}
		if text := toolError(t, cs, "list_jobs", nil); !strings.Contains(text, "code key_revoked") {
			t.Errorf("a call after revocation: %q, want key_revoked", text)
		}
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("workshop mcp after the client closed stdin: %v (log %s)", err, logs.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("workshop mcp did not stop when stdin closed")
		}
	})
}
