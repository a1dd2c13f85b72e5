package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// maxBody is the largest request body accepted (contract section 2).
const maxBody = 1 << 20

// operation is one operation of the OpenAPI document, found by the route
// pattern the ServeMux matched ("GET /v1/platform/me").
type operation struct {
	id          string
	route       *routers.Route
	pathParams  []string
	queryParams []string // the query parameters the operation takes
	hasBody     bool
}

// operationsOf indexes the document's operations by ServeMux pattern; the
// document's path templates are ServeMux patterns as they are.
func operationsOf(doc *openapi3.T) map[string]*operation {
	ops := map[string]*operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := &operation{id: op.OperationID, hasBody: op.RequestBody != nil,
				route: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}}
			for _, p := range append(item.Parameters, op.Parameters...) {
				switch {
				case p.Value == nil:
				case p.Value.In == openapi3.ParameterInPath:
					o.pathParams = append(o.pathParams, p.Value.Name)
				case p.Value.In == openapi3.ParameterInQuery:
					o.queryParams = append(o.queryParams, p.Value.Name)
				}
			}
			ops[method+" "+path] = o
		}
	}
	return ops
}

// unknownQuery refuses a query parameter the operation does not take
// (contract section 2: 400 invalid_parameter naming it), as unknown body
// fields are refused: a misspelt filter must not be silently ignored.
func unknownQuery(r *http.Request, op *operation) error {
	if r.URL.RawQuery == "" {
		return nil // most requests: nothing to parse
	}
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		if slices.Contains(op.queryParams, name) {
			continue
		}
		takes := "takes no query parameters"
		if len(op.queryParams) > 0 {
			takes = "takes " + strings.Join(op.queryParams, ", ")
		}
		return &workshop.Error{Code: workshop.CodeInvalidParameter, Field: name,
			Detail: fmt.Sprintf("Unknown query parameter %s: this operation %s.", name, takes)}
	}
	return nil
}

// jsonBody is a request's JSON body, read and parsed once by the gate and
// handed as it is to everything that reads it: the document's validation,
// the members the gate looks at, the Idempotency-Key's fingerprint and the
// generated binding (which takes value, as ValidatedValue, instead of
// decoding the bytes again: oapi-codegen's runtime.BindJSONBody).
type jsonBody struct {
	raw   []byte
	value any // as encoding/json decodes into an any, numbers as json.Number
}

// validatedBody is a request body the gate parsed: the bytes for a reader
// that wants them, and the parsed value for the generated binding.
type validatedBody struct {
	*bytes.Reader
	value any
}

func (validatedBody) Close() error          { return nil }
func (b validatedBody) ValidatedValue() any { return b.value }

// The generated binding (runtime.BindJSONBody) binds a body with this
// method from its value.
var _ interface{ ValidatedValue() any } = validatedBody{}

// readBody enforces the media type and the size limit and parses a body as
// JSON (nil for an operation that takes none); it leaves r.Body readable
// again, carrying the parsed value.
func readBody(r *http.Request, op *operation) (*jsonBody, error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		var cut *workshop.Error // the body timeout's (deadlineBody)
		switch {
		case errors.As(err, &tooLarge):
			return nil, workshop.Errorf(workshop.CodeBodyTooLarge, "The body is larger than %d bytes.", maxBody)
		case errors.As(err, &cut):
			return nil, cut
		}
		return nil, workshop.Errorf(workshop.CodeInvalidJSON, "The body could not be read.")
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	if !op.hasBody {
		return nil, nil // an operation that takes no body ignores one
	}
	if ct := r.Header.Get("Content-Type"); len(data) > 0 || ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, workshop.Errorf(workshop.CodeUnsupportedMediaType, "Send the body as application/json.")
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, workshop.Errorf(workshop.CodeUnsupportedMediaType, "Send the body in UTF-8 (charset=utf-8), not %s.", cs)
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, workshop.Errorf(workshop.CodeInvalidJSON, "This operation takes a JSON body, and none was sent.")
	}
	value, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(data, []byte(`\u0000`)) && hasNUL(value) {
		return nil, workshop.Errorf(workshop.CodeInvalidJSON, `Strings cannot contain the NUL character (\u0000).`)
	}
	r.Body = validatedBody{Reader: bytes.NewReader(data), value: value}
	return &jsonBody{raw: data, value: value}, nil
}

// parseJSON decodes a body that is one UTF-8 JSON value, numbers kept as
// their text (json.Number), or is invalid_json saying where it goes wrong.
func parseJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, invalidJSON(data)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, invalidJSON(data)
	}
	return v, nil
}

// invalidJSON is invalid_json for a body that is not UTF-8 JSON, saying
// where it goes wrong: Go's decoder takes bytes that are not UTF-8 as
// U+FFFD, which would store a character the client never sent.
func invalidJSON(data []byte) error {
	if !utf8.Valid(data) {
		return workshop.Errorf(workshop.CodeInvalidJSON, "The body is not UTF-8: %s.", positionOf(data, invalidUTF8At(data)))
	}
	var v any
	err := json.Unmarshal(data, &v)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax) && int(syntax.Offset) >= len(data):
		return workshop.Errorf(workshop.CodeInvalidJSON, "The body is not valid JSON: it ends early, at %s.", positionOf(data, len(data)))
	case errors.As(err, &syntax):
		return workshop.Errorf(workshop.CodeInvalidJSON, "The body is not valid JSON at %s: %s.", positionOf(data, int(syntax.Offset)-1), syntax.Error())
	}
	return workshop.Errorf(workshop.CodeInvalidJSON, "The body is not valid JSON.")
}

// invalidUTF8At is the offset of the first byte that is not UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// positionOf says where byte offset i of data is, for people and programs:
// "line 3, column 19 (byte 42)", lines and columns counted from 1 in bytes.
func positionOf(data []byte, i int) string {
	i = max(0, min(i, len(data)))
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i + 1 - (bytes.LastIndexByte(data[:i], '\n') + 1)
	return fmt.Sprintf("line %d, column %d (byte %d)", line, col, i)
}

// hasNUL tells whether a decoded JSON value has a NUL in a string: no
// database text type takes one (PostgreSQL refuses it), so it is refused at
// the door rather than failing a write.
func hasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, 0)
	case []any:
		return slices.ContainsFunc(x, hasNUL)
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, 0) || hasNUL(e) {
				return true
			}
		}
	}
	return false
}

// nulInURL tells whether the path or a query parameter has a NUL.
func nulInURL(r *http.Request) bool {
	if strings.ContainsRune(r.URL.Path, 0) {
		return true
	}
	for _, vs := range r.URL.Query() {
		if slices.ContainsFunc(vs, func(v string) bool { return strings.ContainsRune(v, 0) }) {
			return true
		}
	}
	return false
}

// validate checks the request against the operation in the OpenAPI
// document: its parameters, and its body as the gate parsed it (kin-openapi
// would decode the bytes again). The body's check is what
// openapi3filter.ValidateRequestBody does after its decode: the media
// type's schema, visited as a request, every error gathered. No schema of
// a request body has a default, so the value is not changed.
func (s *Server) validate(r *http.Request, op *operation, body *jsonBody) error {
	params := make(map[string]string, len(op.pathParams))
	for _, name := range op.pathParams {
		params[name] = r.PathValue(name)
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: op.route, Options: s.paramOptions}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	if err == nil && body != nil {
		err = validateBody(in, op.route.Operation.RequestBody.Value, body.value)
	}
	if err == nil {
		return nil
	}
	return problemOfValidation(err)
}

// validateBody checks a parsed body against the schema of its media type.
func validateBody(in *openapi3filter.RequestValidationInput, rb *openapi3.RequestBody, value any) error {
	ct := in.Request.Header.Get("Content-Type")
	mt := rb.Content.Get(ct)
	if mt == nil {
		return &openapi3filter.RequestError{Input: in, RequestBody: rb, Reason: fmt.Sprintf("header Content-Type has unexpected value %q", ct)}
	}
	if mt.Schema == nil {
		return nil
	}
	if err := mt.Schema.Value.VisitJSON(value, openapi3.VisitAsRequest(), openapi3.MultiErrors()); err != nil {
		return &openapi3filter.RequestError{Input: in, RequestBody: rb, Reason: "doesn't match schema", Err: err}
	}
	return nil
}

var (
	unsupportedRe = regexp.MustCompile(`^property "(.+)" is unsupported$`)
	missingRe     = regexp.MustCompile(`^property "(.+)" is missing$`)
)

// problemOfValidation turns kin-openapi's errors into the contract's: an
// unknown member is 400 unknown_field, a bad parameter 400
// invalid_parameter, any other body error 422 validation_failed, each
// naming the field.
func problemOfValidation(err error) error {
	var unknown, invalid []workshop.FieldError
	var param *workshop.Error
	var visit func(error)
	visit = func(err error) {
		// Only a MultiError at this level: errors.As would reach into a
		// parameter's own error and lose which parameter it was.
		if me, ok := err.(openapi3.MultiError); ok {
			for _, e := range me {
				visit(e)
			}
			return
		}
		var re *openapi3filter.RequestError
		if errors.As(err, &re) && re.Parameter != nil {
			if param == nil {
				param = &workshop.Error{Code: workshop.CodeInvalidParameter, Field: re.Parameter.Name,
					Detail: "The " + re.Parameter.In + " parameter " + parameterMessage(re)}
			}
			return
		}
		if errors.As(err, &re) && re.Err != nil {
			var inner openapi3.MultiError
			if errors.As(re.Err, &inner) {
				visit(inner)
				return
			}
		}
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			path := se.JSONPointer()
			if m := unsupportedRe.FindStringSubmatch(se.Reason); m != nil {
				f := fieldPath(append(path, m[1]))
				unknown = append(unknown, workshop.FieldError{Field: f, Code: "unknown_field", Message: fmt.Sprintf("%s is not a field of this request.", f)})
				return
			}
			code := "invalid"
			if m := missingRe.FindStringSubmatch(se.Reason); m != nil {
				// kin-openapi may already end the pointer with the member.
				if len(path) == 0 || path[len(path)-1] != m[1] {
					path = append(path, m[1])
				}
				code = "required"
			}
			f := fieldPath(path)
			invalid = append(invalid, workshop.FieldError{Field: f, Code: code, Message: messageOf(f, se)})
			return
		}
		invalid = append(invalid, workshop.FieldError{Field: "", Code: "invalid", Message: err.Error()})
	}
	visit(err)
	switch {
	case len(unknown) > 0:
		return &workshop.Error{Code: workshop.CodeUnknownField, Field: unknown[0].Field, Fields: unknown, Detail: unknown[0].Message}
	case param != nil:
		return param
	case len(invalid) > 0:
		return workshop.ValidationError(invalid...)
	}
	return workshop.Errorf(workshop.CodeInvalidJSON, "The request is not valid.")
}

// parameterMessage says what is wrong with a parameter, for people.
func parameterMessage(re *openapi3filter.RequestError) string {
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		return messageOf(re.Parameter.Name, se)
	}
	return re.Parameter.Name + " is not valid."
}

// fieldPath makes "steps[0].label" of the pointer [steps 0 label].
func fieldPath(ptr []string) string {
	var b strings.Builder
	for _, p := range ptr {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
