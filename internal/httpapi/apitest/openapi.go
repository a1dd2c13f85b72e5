package apitest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/workshop-platform/workshop/api"
)

// spec is the OpenAPI document loaded once, with a router that finds an
// operation by the request's method and path alone (the document's server
// URL is dropped, so the test server's random port matches).
type spec struct {
	doc    *openapi3.T
	router routers.Router
	// mu serialises validation: kin-openapi's schemas are shared.
	mu sync.Mutex
}

var (
	specOnce sync.Once
	theSpec  *spec
	specErr  error
)

func loadSpec() (*spec, error) {
	specOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
		if err != nil {
			specErr = fmt.Errorf("load api/openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = fmt.Errorf("api/openapi.yaml is invalid: %w", err)
			return
		}
		doc.Servers = nil // match on the path alone
		router, err := legacy.NewRouter(doc)
		if err != nil {
			specErr = fmt.Errorf("route api/openapi.yaml: %w", err)
			return
		}
		theSpec = &spec{doc: doc, router: router}
	})
	return theSpec, specErr
}

// Document is the OpenAPI document (api/openapi.yaml), loaded and
// validated; its servers are dropped. Do not modify it.
func Document() (*openapi3.T, error) {
	s, err := loadSpec()
	if err != nil {
		return nil, err
	}
	return s.doc, nil
}

// Operation is one operation of the OpenAPI document.
type Operation struct {
	ID          string // operationId
	Method      string // GET, POST, ...
	Path        string // the path template, /v1/platform/integrations/{integrationId}
	PathParams  []string
	QueryParams []string
	// Parameters are the operation's parameters, the path item's included.
	Parameters []*openapi3.Parameter
	// Body is the JSON request body schema, nil when the operation takes none.
	Body *openapi3.Schema
	Op   *openapi3.Operation
}

func (o Operation) String() string { return o.Method + " " + o.Path }

// Operations lists every operation of the document, ordered by path and
// method, so that tests iterating them cover a new endpoint by themselves.
func Operations() ([]Operation, error) {
	s, err := loadSpec()
	if err != nil {
		return nil, err
	}
	var out []Operation
	for path, item := range s.doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := Operation{ID: op.OperationID, Method: method, Path: path, Op: op}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value == nil {
					continue
				}
				o.Parameters = append(o.Parameters, p.Value)
				switch p.Value.In {
				case openapi3.ParameterInPath:
					o.PathParams = append(o.PathParams, p.Value.Name)
				case openapi3.ParameterInQuery:
					o.QueryParams = append(o.QueryParams, p.Value.Name)
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					o.Body = mt.Schema.Value
				}
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, nil
}

// ExpandPath fills the path template's {parameters}; a parameter without a
// value is an error.
func (o Operation) ExpandPath(values map[string]string) (string, error) {
	path := o.Path
	for _, name := range o.PathParams {
		v, ok := values[name]
		if !ok {
			return "", fmt.Errorf("%s: no value for path parameter %q", o, name)
		}
		path = strings.ReplaceAll(path, "{"+name+"}", v)
	}
	return path, nil
}

// Example is a plausible minimal value of a schema: its example when it has
// one, else the first enum value, else the smallest value of its type with
// only the required members of an object. Request bodies built from it pass
// the document's validation.
func Example(s *openapi3.Schema) any {
	if s == nil {
		return nil
	}
	if s.Example != nil {
		return s.Example
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	for _, sub := range s.AllOf {
		if sub.Value != nil {
			if v := Example(sub.Value); v != nil {
				return v
			}
		}
	}
	for _, sub := range append(s.OneOf, s.AnyOf...) {
		if sub.Value != nil {
			return Example(sub.Value)
		}
	}
	switch {
	case s.Type.Is(openapi3.TypeObject) || len(s.Properties) > 0:
		obj := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				obj[name] = Example(p.Value)
			}
		}
		return obj
	case s.Type.Is(openapi3.TypeArray):
		var list []any
		for range s.MinItems {
			if s.Items != nil {
				list = append(list, Example(s.Items.Value))
			}
		}
		if list == nil {
			list = []any{}
		}
		return list
	case s.Type.Is(openapi3.TypeString):
		return strings.Repeat("x", max(1, int(s.MinLength)))
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is(openapi3.TypeBoolean):
		return false
	}
	return nil
}
