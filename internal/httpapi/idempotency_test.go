package httpapi

import (
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/workshop-platform/workshop/api"
)

// The operations said to store their Idempotency-Key in their own write
// are POST operations of the document, those said to act on their key's
// location too, and those said to create a record answer 201: a name that
// matched no operation would store no key, replay anything, or answer a
// create without its ETag and Location.
func TestIdempotentOperationsExist(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	posts, creates := map[string]bool{}, map[string]bool{}
	for _, item := range doc.Paths.Map() {
		if op := item.GetOperation(http.MethodPost); op != nil {
			posts[op.OperationID] = true
		}
		for _, op := range item.Operations() {
			if op.Responses.Status(http.StatusCreated) != nil {
				creates[op.OperationID] = true
			}
		}
	}
	for _, table := range []struct {
		name string
		ids  map[string]bool
		in   map[string]bool
	}{{"keyStoredByWrite", keyStoredByWrite, posts}, {"locationFromKey", locationFromKey, posts}} {
		for id := range table.ids {
			if !table.in[id] {
				t.Errorf("%s has %q, not a POST operation of the document", table.name, id)
			}
		}
	}
	for id := range creates {
		if _, ok := createdAddress[id]; !ok {
			t.Errorf("%s answers 201 and is not in createdAddress", id)
		}
	}
	for id := range createdAddress {
		if !creates[id] {
			t.Errorf("createdAddress has %q, which answers no 201", id)
		}
	}
}

// Two bodies that parse to the same JSON are the same request; any other
// difference is another.
func TestFingerprintComparesParsedBodies(t *testing.T) {
	t.Parallel()
	base := fingerprint("POST", "/v1/scheduler/jobs", []byte(`{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`), "")
	for _, tc := range []struct {
		name, method, path, body, location string
		same                               bool
	}{
		{"member order and whitespace", "POST", "/v1/scheduler/jobs", "{ \"priority\": \"high\",\n \"vehiclePlate\":\"B-AB 1\", \"locationId\":\"loc_1\" }", "", true},
		{"escaped the same string", "POST", "/v1/scheduler/jobs", `{"locationId":"loc\u005f1","vehiclePlate":"B-AB 1","priority":"high"}`, "", true},
		{"another value", "POST", "/v1/scheduler/jobs", `{"locationId":"loc_1","vehiclePlate":"B-AB 2","priority":"high"}`, "", false},
		{"a member fewer", "POST", "/v1/scheduler/jobs", `{"locationId":"loc_1","vehiclePlate":"B-AB 1"}`, "", false},
		{"another path", "POST", "/v1/scheduler/jobs/x", `{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`, "", false},
		{"acting on another location", "POST", "/v1/scheduler/jobs", `{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`, "loc_2", false},
	} {
		if got := fingerprint(tc.method, tc.path, []byte(tc.body), tc.location) == base; got != tc.same {
			t.Errorf("%s: same request got %v, want %v", tc.name, got, tc.same)
		}
	}
}
