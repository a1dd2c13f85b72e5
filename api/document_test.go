package api_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/workshop-platform/workshop/api"
)

// TestDocumentGeneratesCleanClients holds the published document to what
// an outside generator run with its default options needs: no x-go-*
// hint (those name this module's packages, kept in server-overlay.yaml),
// and no default in a request body's schema (openapi-typescript makes a
// property with a default required, and a client would have to send it).
func TestDocumentGeneratesCleanClients(t *testing.T) {
	t.Parallel()
	if hints := regexp.MustCompile(`(?m)^\s*x-go-[a-z-]+`).FindAll(api.OpenAPI, -1); len(hints) > 0 {
		t.Errorf("openapi.yaml carries x-go-* extensions: got %q, want none (move them to server-overlay.yaml)", hints)
	}
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			for mediaType, content := range op.RequestBody.Value.Content {
				where := fmt.Sprintf("%s %s %s", method, path, mediaType)
				for _, d := range defaultsIn(content.Schema, where, map[*openapi3.Schema]bool{}) {
					t.Errorf("request body schema has a default: %s; want none (say it in the description)", d)
				}
			}
		}
	}
}

// defaultsIn names every property with a default under ref.
func defaultsIn(ref *openapi3.SchemaRef, where string, seen map[*openapi3.Schema]bool) []string {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return nil
	}
	s := ref.Value
	seen[s] = true
	var out []string
	if s.Default != nil {
		out = append(out, fmt.Sprintf("%s: default %v", where, s.Default))
	}
	for name, p := range s.Properties {
		out = append(out, defaultsIn(p, where+"."+name, seen)...)
	}
	out = append(out, defaultsIn(s.Items, where+"[]", seen)...)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			out = append(out, defaultsIn(sub, where, seen)...)
		}
	}
	return out
}
