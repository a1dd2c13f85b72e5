// Package mcpserver is the read-only AI connection: a Model Context
// Protocol server whose twelve tools are the REST API's reads. Each tool runs
// its REST read in-process (httpapi.Server.Read) as the token's user, so a
// tool's result is the REST JSON byte for byte, with the same errors. It is
// served over stateless Streamable HTTP at /mcp (any `serve` process can
// answer any request) and over stdio by `workshop mcp`.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Reader runs a REST read for a caller: httpapi.Server.Read.
type Reader interface {
	Read(ctx context.Context, p *workshop.Principal, path string, query url.Values) (status int, body []byte)
}

// Caller tells who is calling a tool. It runs on every tool call, so a
// revoked token stops working on its next call.
type Caller func(ctx context.Context) (*workshop.Principal, error)

// Options are the server's settings.
type Options struct {
	Version string       // the service's version, shown to clients
	Logger  *slog.Logger // nil: no logging
	// AllowedOrigins are the browser origins besides the server's own that
	// may call /mcp (httpapi.ParseOrigin's form); HTTP only.
	AllowedOrigins []string
}

// Name is the server's name in the initialize result.
const Name = "workshop"

const instructions = `Read-only access to a vehicle workshop's live operations, as the user who made the token: ` +
	`jobs (vehicle visits) and their steps, job detail (plan versus actual, promise, holds, delays), the live board, ` +
	`technicians, bays, the service catalog, attendance and the workshop settings of every location. ` +
	`No tool changes anything. Results are the JSON of the Workshop REST API. ` +
	`Lists are paginated: pass nextCursor back as cursor. get_workshop_settings lists the locations (ids, time zones).`

// New builds the MCP server with the twelve tools on reader; caller tells who
// each call is made as.
func New(reader Reader, caller Caller, opts Options) (*mcp.Server, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Workshop", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLogger(opts.Logger),
		// Tools only; the list never changes while the server runs.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, spec := range tools {
		t, err := build(doc, spec)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", spec.name, err)
		}
		srv.AddTool(t.tool, t.handler(reader, caller))
	}
	return srv, nil
}

// HTTPHandler is the MCP endpoint of a `serve` process, to Mount at /mcp:
// stateless Streamable HTTP (no session is kept, so any process can answer
// any request) with JSON responses, behind httpapi.OriginGuard (no web page
// of another origin) and api.MCPAuth (an MCP token on every request,
// checked every time); a method the server does not have is the JSON-RPC
// error -32601 (methodNotFound).
func HTTPHandler(a *httpapi.Server, opts Options) (http.Handler, error) {
	// The SDK runs a stateless request's session with the request's
	// context, so the caller MCPAuth put there reaches the tool handlers.
	srv, err := New(a, func(ctx context.Context) (*workshop.Principal, error) {
		if p := httpapi.CallerOf(ctx); p != nil {
			return p, nil
		}
		// MCPAuth runs before every request: this is a wiring mistake.
		return nil, errors.New("the MCP request carries no authenticated caller")
	}, opts)
	if err != nil {
		return nil, err
	}
	return httpapi.OriginGuard(opts.AllowedOrigins, a.MCPAuth(methodNotFound(carryRequest(streamable(srv, opts.Logger))))), nil
}

// requestKey holds the context of the HTTP request a tool call came in.
type requestKey struct{}

// carryRequest puts the request's own context among its values, for
// boundToRequest.
func carryRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, r.Context())))
	})
}

// boundToRequest ends a tool call's context when the HTTP request it came
// in ends (its client went away). The SDK runs a stateless call under a
// context that keeps the request's values but not its cancellation, for
// every protocol before 2026-07-28 (the MCP specification of those
// versions lets a client resume a dropped stream, which a stateless
// server answering with one JSON body never offers): here nobody could
// ever receive the answer, so the read stops with its client. Outside
// HTTP (stdio) the context is as it was.
func boundToRequest(ctx context.Context) (context.Context, context.CancelFunc) {
	req, ok := ctx.Value(requestKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(req, func() { cancel(context.Cause(req)) })
	return ctx, func() { stop(); cancel(nil) }
}

// streamable serves srv over stateless Streamable HTTP with JSON responses.
func streamable(srv *mcp.Server, log *slog.Logger) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       sdkLogger(log),
		// A call of the 2026-07-28 protocol ends with its request; older
		// ones do through boundToRequest.
		PropagateRequestCancellation: true,
		// The SDK refuses requests to a loopback listener whose Host is not
		// loopback (DNS rebinding). Every request here must carry a bearer
		// token a rebound page cannot know, OriginGuard refuses other sites'
		// pages, and the check would refuse a reverse proxy on the same
		// machine: it is off.
		DisableLocalhostProtection: true,
	})
}

// sdkLogger is the SDK's logger: warnings and errors only, since it logs
// every stateless request's session at info level (the request's own log
// line says what happened).
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

// minLevel drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

// TokenCaller authenticates an MCP token on every call (the stdio server,
// which has no request to carry it): revocation and expiry take effect on
// the next call.
func TokenCaller(creds httpapi.Credentials, token string, now func() time.Time) Caller {
	return func(ctx context.Context) (*workshop.Principal, error) {
		return httpapi.Authenticate(ctx, creds, "Bearer "+token, workshop.KindMCPToken, workshop.MicrosOf(now()))
	}
}

// tool is a built tool: its MCP definition and how to call its REST read.
type tool struct {
	tool     *mcp.Tool
	path     string   // the REST path template, /v1/scheduler/jobs/{jobId}
	params   []*param // by name
	byName   map[string]*param
	argNames string // "a, b, c" for messages
}

type param struct {
	name, in, typ string // in: "path" or "query"; typ: the schema type
}

// build makes a tool of its REST read in the document.
func build(doc *openapi3.T, spec toolSpec) (*tool, error) {
	var path string
	var op *openapi3.Operation
	var item *openapi3.PathItem
	for p, it := range doc.Paths.Map() {
		for method, o := range it.Operations() {
			if o.OperationID != spec.operationID {
				continue
			}
			if method != http.MethodGet {
				return nil, fmt.Errorf("operation %s is %s: a tool only reads", spec.operationID, method)
			}
			path, op, item = p, o, it
		}
	}
	if op == nil {
		return nil, fmt.Errorf("no operation %s in the OpenAPI document", spec.operationID)
	}
	c := newConverter(doc)
	t := &tool{path: path, byName: map[string]*param{}}
	props := map[string]any{}
	required := []string{}
	for _, ref := range append(slices.Clone(item.Parameters), op.Parameters...) {
		pv := ref.Value
		if pv == nil || (pv.In != openapi3.ParameterInPath && pv.In != openapi3.ParameterInQuery) {
			continue
		}
		s, err := c.schema(pv.Schema)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", pv.Name, err)
		}
		if _, ok := s["description"]; !ok && pv.Description != "" {
			s["description"] = pv.Description
		}
		typ, _ := s["type"].(string)
		p := &param{name: pv.Name, in: pv.In, typ: typ}
		t.params = append(t.params, p)
		t.byName[p.name] = p
		props[p.name] = s
		if pv.Required || (spec.locationRequired && p.name == "locationId") {
			required = append(required, p.name)
		}
	}
	slices.SortFunc(t.params, func(a, b *param) int { return strings.Compare(a.name, b.name) })
	names := make([]string, len(t.params))
	for i, p := range t.params {
		names[i] = p.name
	}
	t.argNames = strings.Join(names, ", ")
	if spec.locationRequired && t.byName["locationId"] == nil {
		return nil, fmt.Errorf("operation %s has no locationId parameter", spec.operationID)
	}
	input := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		input["required"] = required
	}
	ok := op.Responses.Status(http.StatusOK)
	if ok == nil || ok.Value == nil || ok.Value.Content["application/json"] == nil {
		return nil, fmt.Errorf("operation %s has no application/json 200 response", spec.operationID)
	}
	out, err := c.schema(ok.Value.Content["application/json"].Schema)
	if err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	if out, err = objectSchema(out); err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	inputJSON, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	outputJSON, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	f := false
	t.tool = &mcp.Tool{
		Name:         spec.name,
		Title:        spec.title,
		Description:  spec.description,
		InputSchema:  json.RawMessage(inputJSON),
		OutputSchema: json.RawMessage(outputJSON),
		Annotations: &mcp.ToolAnnotations{
			Title:           spec.title,
			ReadOnlyHint:    true,
			IdempotentHint:  true,
			DestructiveHint: &f,
			OpenWorldHint:   &f,
		},
	}
	return t, nil
}

// handler calls the tool's REST read as the caller.
func (t *tool) handler(reader Reader, caller Caller) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := boundToRequest(ctx)
		defer stop()
		p, err := caller(ctx)
		if err != nil {
			var e *workshop.Error
			if errors.As(err, &e) {
				return toolError(e.Detail, string(e.Code), e.Field, ""), nil
			}
			return nil, err // not the caller's doing: a JSON-RPC internal error
		}
		path, query, argErr := t.request(req.Params.Arguments)
		if argErr != nil {
			return argErr, nil
		}
		status, body := reader.Read(ctx, p, path, query)
		if status != http.StatusOK {
			return problemResult(status, body), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(bytes.TrimSuffix(body, []byte("\n")))}},
			StructuredContent: json.RawMessage(body),
		}, nil
	}
}

// request makes the REST path and query of the arguments. Arguments are
// the read's parameters by name; values go to the read as they are
// (numbers and booleans as their JSON text), so that the read validates
// them and answers with its own messages. An argument the read does not
// take, or one that is not a single value, is refused here.
func (t *tool) request(raw json.RawMessage) (string, url.Values, *mcp.CallToolResult) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return "", nil, toolError("The arguments must be a JSON object.", string(workshop.CodeInvalidParameter), "", "")
		}
	}
	query := url.Values{}
	path := t.path
	for name, v := range args {
		p := t.byName[name]
		if p == nil {
			if t.argNames == "" {
				return "", nil, toolError(fmt.Sprintf("%s takes no arguments; %q is not one.", t.tool.Name, name),
					string(workshop.CodeInvalidParameter), name, "")
			}
			return "", nil, toolError(fmt.Sprintf("%q is not an argument of %s; it takes %s.", name, t.tool.Name, t.argNames),
				string(workshop.CodeInvalidParameter), name, "")
		}
		var s string
		switch x := v.(type) {
		case nil:
			continue // as if omitted
		case string:
			s = x
		case json.Number:
			s = x.String()
		case bool:
			s = strconv.FormatBool(x)
		case []any:
			if p.typ != "array" {
				return "", nil, toolError(fmt.Sprintf("%s must be a single %s value.", name, orString(p.typ)),
					string(workshop.CodeInvalidParameter), name, "")
			}
			items, ok := commaList(x)
			if !ok {
				return "", nil, toolError(fmt.Sprintf("%s must be a list of strings.", name), string(workshop.CodeInvalidParameter), name, "")
			}
			s = items
		default:
			return "", nil, toolError(fmt.Sprintf("%s must be a single %s value.", name, orString(p.typ)),
				string(workshop.CodeInvalidParameter), name, "")
		}
		if p.in == openapi3.ParameterInPath {
			path = strings.Replace(path, "{"+name+"}", url.PathEscape(s), 1)
		} else {
			query.Set(name, s)
		}
	}
	for _, p := range t.params {
		if p.in == openapi3.ParameterInPath && strings.Contains(path, "{"+p.name+"}") {
			return "", nil, toolError(fmt.Sprintf("%s is required.", p.name), string(workshop.CodeInvalidParameter), p.name, "")
		}
	}
	return path, query, nil
}

// commaList is a list argument as the REST read takes it (style form, not
// exploded: a,b,c); only strings without commas can be said so.
func commaList(items []any) (string, bool) {
	parts := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok || strings.Contains(s, ",") {
			return "", false
		}
		parts[i] = s
	}
	return strings.Join(parts, ","), true
}

func orString(typ string) string {
	if typ == "" {
		return "string"
	}
	return typ
}

// problemResult is a REST error as a tool error: the problem's detail with
// its code, field and request id, and every field error of a validation
// failure.
func problemResult(status int, body []byte) *mcp.CallToolResult {
	var p struct {
		Code      string `json:"code"`
		Detail    string `json:"detail"`
		Field     string `json:"field"`
		RequestID string `json:"requestId"`
		Errors    []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Code == "" {
		return toolError(fmt.Sprintf("The read answered HTTP %d.", status), string(workshop.CodeInternal), "", "")
	}
	detail := p.Detail
	for _, e := range p.Errors {
		if e.Message != "" && !strings.Contains(detail, e.Message) {
			detail += " " + e.Message
		}
	}
	return toolError(detail, p.Code, p.Field, p.RequestID)
}

// toolError is a failed call: the text says what is wrong in the REST
// API's words, then "(code ..., field ..., requestId ...)".
func toolError(detail, code, field, requestID string) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(detail)
	b.WriteString(" (code " + code)
	if field != "" {
		b.WriteString(", field " + field)
	}
	if requestID != "" {
		b.WriteString(", requestId " + requestID)
	}
	b.WriteString(")")
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}
