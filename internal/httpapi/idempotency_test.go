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

// Two bodies that parse to the same JSON are the same request; any other
// difference is another.
func TestFingerprintComparesParsedBodies(t *testing.T) {
	t.Parallel()
	base := fingerprint("POST", "/v1/scheduler/jobs", []byte(`{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`))
	for _, tc := range []struct {
		name, method, path, body string
		same                     bool
	}{
		{"member order and whitespace", "POST", "/v1/scheduler/jobs", "{ \"priority\": \"high\",\n \"vehiclePlate\":\"B-AB 1\", \"locationId\":\"loc_1\" }", true},
		{"escaped the same string", "POST", "/v1/scheduler/jobs", `{"locationId":"loc\u005f1","vehiclePlate":"B-AB 1","priority":"high"}`, true},
		{"another value", "POST", "/v1/scheduler/jobs", `{"locationId":"loc_1","vehiclePlate":"B-AB 2","priority":"high"}`, false},
		{"a member fewer", "POST", "/v1/scheduler/jobs", `{"locationId":"loc_1","vehiclePlate":"B-AB 1"}`, false},
		{"another path", "POST", "/v1/scheduler/jobs/x", `{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`, false},
	} {
		if got := fingerprint(tc.method, tc.path, []byte(tc.body)) == base; got != tc.same {
			t.Errorf("%s: same request got %v, want %v", tc.name, got, tc.same)
		}
	}
}
