package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/workshop-platform/workshop/client"
)

// ValidatingDoer is an client.HttpRequestDoer that sends each request and
// checks its response, failing the test (t.Errorf) on any mismatch:
//
//   - against api/openapi.yaml with kin-openapi: the status is one the
//     operation declares, the content type and the body match its schema,
//     declared headers have their type;
//   - against the conventions of every response (contract section 2):
//     X-Request-Id req_..., every error an application/problem+json problem
//     whose status and requestId are the response's, every 401 with
//     WWW-Authenticate: Bearer.
//
// Paths outside the document (/healthz, /metrics, an unknown /v1 path) get
// the convention checks only. The response body stays readable.
type ValidatingDoer struct {
	T      testing.TB
	Client *http.Client // nil: a client with a 60 s timeout
}

var _ client.HttpRequestDoer = (*ValidatingDoer)(nil)

// NewDoer is a ValidatingDoer failing t.
func NewDoer(t testing.TB) *ValidatingDoer { return &ValidatingDoer{T: t} }

var defaultClient = &http.Client{Timeout: 60 * time.Second}

// Do sends req and validates the response.
func (d *ValidatingDoer) Do(req *http.Request) (*http.Response, error) {
	c := d.Client
	if c == nil {
		c = defaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the response body of %s %s: %w", req.Method, req.URL.Path, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	for _, problem := range CheckResponse(req, resp.StatusCode, resp.Header, body) {
		d.T.Errorf("%s %s -> %d: %s\nbody: %s", req.Method, req.URL.RequestURI(), resp.StatusCode, problem, excerpt(body))
	}
	return resp, nil
}

// apiPath tells whether the API answers a path; the application answers
// every other one with its own pages (contract section 7).
func apiPath(p string) bool {
	return strings.HasPrefix(p, "/v1/") || slices.Contains([]string{"/mcp", "/healthz", "/readyz", "/metrics"}, p)
}

// CheckResponse returns every way a response breaks the OpenAPI document
// or the response conventions; none when it is fine.
func CheckResponse(req *http.Request, status int, header http.Header, body []byte) []string {
	s, err := loadSpec()
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	if id := header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") || len(id) <= len("req_") {
		out = append(out, fmt.Sprintf("X-Request-Id: got %q, want req_<opaque>", id))
	}
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if status >= 400 && mt != "application/problem+json" && apiPath(req.URL.Path) {
		out = append(out, fmt.Sprintf("Content-Type of an error: got %q, want application/problem+json", header.Get("Content-Type")))
	}
	if mt == "application/problem+json" {
		out = append(out, s.checkProblem(status, header, body)...)
	}
	if status == http.StatusUnauthorized && !strings.HasPrefix(header.Get("WWW-Authenticate"), "Bearer") {
		out = append(out, fmt.Sprintf("WWW-Authenticate of a 401: got %q, want Bearer ...", header.Get("WWW-Authenticate")))
	}

	route, params, err := s.router.FindRoute(req)
	if err != nil {
		var re *routers.RouteError
		if errors.As(err, &re) && strings.HasPrefix(req.URL.Path, "/v1/") && req.URL.Path != "/v1/openapi.json" {
			// Not an operation of the document: it can only be refused.
			switch status {
			case http.StatusUnauthorized, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusTooManyRequests:
			default:
				out = append(out, fmt.Sprintf("%s %s is not an operation of api/openapi.yaml but answered %d", req.Method, req.URL.Path, status))
			}
		}
		return out
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	s.mu.Lock()
	err = openapi3filter.ValidateResponse(context.Background(), in)
	s.mu.Unlock()
	if err != nil {
		out = append(out, fmt.Sprintf("does not match %s %s (%s) in api/openapi.yaml: %v", route.Method, route.Path, route.Operation.OperationID, err))
	}
	return out
}

// checkProblem checks an RFC 9457 problem body against the Problem schema
// and the response it came with.
func (s *spec) checkProblem(status int, header http.Header, body []byte) []string {
	var out []string
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{fmt.Sprintf("problem body is not JSON: %v", err)}
	}
	if ref := s.doc.Components.Schemas["Problem"]; ref != nil && ref.Value != nil {
		s.mu.Lock()
		err := ref.Value.VisitJSON(v, openapi3.MultiErrors())
		s.mu.Unlock()
		if err != nil {
			out = append(out, fmt.Sprintf("problem body does not match the Problem schema: %v", err))
		}
	}
	var p client.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		return append(out, fmt.Sprintf("problem body: %v", err))
	}
	if p.Status != status {
		out = append(out, fmt.Sprintf("problem status: got %d, want the response's %d", p.Status, status))
	}
	if id := header.Get("X-Request-Id"); p.RequestId != id {
		out = append(out, fmt.Sprintf("problem requestId: got %q, want the X-Request-Id %q", p.RequestId, id))
	}
	if p.Type == "" || p.Title == "" || p.Detail == "" || p.Code == "" {
		out = append(out, fmt.Sprintf("problem: type, title, code and detail must be non-empty: got type %q title %q code %q detail %q", p.Type, p.Title, p.Code, p.Detail))
	}
	return out
}

func excerpt(b []byte) string {
	const n = 2000
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// Client is the generated API client for base (the server URL) sending key
// as the bearer key ("" sends none); every response it gets is validated by
// a ValidatingDoer failing t.
func Client(t testing.TB, base, key string) *client.ClientWithResponses {
	t.Helper()
	opts := []client.ClientOption{client.WithHTTPClient(NewDoer(t))}
	if key != "" {
		opts = append(opts, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	}
	c, err := client.NewClientWithResponses(base, opts...)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

// Request is a raw request for what the generated client cannot send
// (wrong media types, malformed bodies, operations by path).
type Request struct {
	Method string
	Path   string // with the query, relative to the server URL
	Key    string // the bearer key; "" sends none
	// Body is sent as is, as application/json unless ContentType says
	// otherwise; a non-[]byte, non-nil value is encoded as JSON.
	Body        any
	ContentType string
	Header      http.Header
}

// Response is a raw response, its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Problem decodes the body as a problem; the zero Problem when it is not one.
func (r *Response) Problem() client.Problem {
	var p client.Problem
	_ = json.Unmarshal(r.Body, &p)
	return p
}

// Decode decodes the JSON body into v, failing t when it cannot.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", excerpt(r.Body), err)
	}
}

// Call sends a raw request to base through a ValidatingDoer failing t, and
// stops the test when the request cannot be made.
func Call(t testing.TB, base string, r Request) *Response {
	t.Helper()
	resp, err := Send(t, base, r)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Send is Call for other goroutines than the test's: it returns the
// transport error instead of stopping the test (validation failures still
// fail t).
func Send(t testing.TB, base string, r Request) (*Response, error) {
	return send(NewDoer(t), base, r)
}

// Unchecked sends a request without validating the response against the
// document: for answers the document cannot describe, such as a path
// outside it or a body the server had to refuse before routing.
func Unchecked(base string, r Request) (*Response, error) {
	return send(defaultClient, base, r)
}

func send(doer client.HttpRequestDoer, base string, r Request) (*Response, error) {
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("encode the body: %w", err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if body != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	resp, err := doer.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, err
}
