package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The tools' schemas are made from api/openapi.yaml, the document the REST
// API validates against: a tool takes the parameters of its REST read and
// answers that read's 200 body, so the two cannot drift apart.
//
// OpenAPI 3.0 schemas are JSON Schema with a few differences, turned here
// into plain JSON Schema (2020-12) that MCP clients validate with: $refs
// are inlined, `nullable: true` becomes a "null" type, booleans
// exclusiveMinimum/exclusiveMaximum become numbers, and the keywords that
// are OpenAPI's own (example, discriminator, xml, externalDocs, x-*) go.

const componentPrefix = "#/components/schemas/"

// converter turns OpenAPI schemas of one document into JSON Schema.
type converter struct {
	doc      *openapi3.T
	visiting map[string]bool // components being inlined: a cycle is an error
}

func newConverter(doc *openapi3.T) *converter {
	return &converter{doc: doc, visiting: map[string]bool{}}
}

// schema converts a schema (a $ref or an inline one).
func (c *converter) schema(r *openapi3.SchemaRef) (map[string]any, error) {
	if r == nil {
		return map[string]any{}, nil
	}
	if r.Ref != "" {
		return c.component(r.Ref)
	}
	if r.Value == nil {
		return map[string]any{}, nil
	}
	data, err := json.Marshal(r.Value)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return c.fix(m)
}

// component inlines a schema of components/schemas.
func (c *converter) component(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, componentPrefix)
	if !ok {
		return nil, fmt.Errorf("schema $ref %q is not a component schema of this document", ref)
	}
	target := c.doc.Components.Schemas[name]
	if target == nil || target.Value == nil {
		return nil, fmt.Errorf("schema $ref %q: no such component", ref)
	}
	if c.visiting[name] {
		return nil, fmt.Errorf("schema %s is recursive and cannot be inlined", name)
	}
	c.visiting[name] = true
	defer delete(c.visiting, name)
	return c.schema(&openapi3.SchemaRef{Value: target.Value})
}

// fix converts a schema decoded from the document's JSON form.
func (c *converter) fix(m map[string]any) (map[string]any, error) {
	if ref, ok := m["$ref"].(string); ok {
		return c.component(ref) // in OpenAPI 3.0 a $ref's siblings are ignored
	}
	for k := range m {
		switch {
		case strings.HasPrefix(k, "x-"), k == "example", k == "discriminator", k == "xml", k == "externalDocs":
			delete(m, k)
		}
	}
	var err error
	sub := func(v any) any {
		if s, ok := v.(map[string]any); ok && err == nil {
			var out map[string]any
			out, err = c.fix(s)
			return out
		}
		return v
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			props[name] = sub(p)
		}
	}
	for _, k := range []string{"items", "not", "additionalProperties"} {
		if v, ok := m[k]; ok {
			m[k] = sub(v)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok {
			for i, v := range list {
				list[i] = sub(v)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	for bound, limit := range map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"} {
		if b, ok := m[bound].(bool); ok {
			delete(m, bound)
			if v, has := m[limit]; b && has {
				m[bound] = v
				delete(m, limit)
			}
		}
	}
	if nullable, _ := m["nullable"].(bool); nullable {
		delete(m, "nullable")
		return nullableOf(m), nil
	}
	delete(m, "nullable")
	return m, nil
}

// nullableOf is the schema that also allows null: anyOf the schema and
// null, each with a single type (the portable spelling: some clients map
// tool schemas onto a dialect with one type per schema), the annotations
// on the whole.
func nullableOf(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"title", "description", "default", "deprecated", "readOnly", "writeOnly"} {
		if v, ok := m[k]; ok {
			out[k] = v
			delete(m, k)
		}
	}
	out["anyOf"] = []any{m, map[string]any{"type": "null"}}
	return out
}

// objectSchema makes sure a tool's output schema says it is an object (MCP
// structured content is an object): a schema made only of allOf, oneOf or
// anyOf parts gets "type": "object" when every part is one.
func objectSchema(m map[string]any) (map[string]any, error) {
	if t, ok := m["type"]; ok {
		if t != "object" {
			return nil, fmt.Errorf("the response schema is of type %v, not object", t)
		}
		return m, nil
	}
	found := false
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := m[k].([]any)
		for _, part := range list {
			p, _ := part.(map[string]any)
			if _, err := objectSchema(p); err != nil {
				return nil, err
			}
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("the response schema does not say it is an object")
	}
	m["type"] = "object"
	return m, nil
}
