package httpapi

import (
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/workshop-platform/workshop/api"
)

// The operations said to store their Idempotency-Key in their own write
// are POST operations of the document, and keyInWrite is among them: a
// name that matched no operation would store no key and replay nothing.
func TestIdempotentOperationsExist(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	posts := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		if op := item.GetOperation(http.MethodPost); op != nil {
			posts[op.OperationID] = true
		}
	}
	for id := range keyStoredByWrite {
		if !posts[id] {
			t.Errorf("keyStoredByWrite has %q, not a POST operation of the document", id)
		}
	}
	for id := range keyInWrite {
		if !keyStoredByWrite[id] {
			t.Errorf("keyInWrite has %q, which does not store its key in its write", id)
		}
	}
}
