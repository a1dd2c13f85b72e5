package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
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
	base := fingerprint("POST", "/v1/scheduler/jobs", parsed(t, `{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`), "")
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
		if got := fingerprint(tc.method, tc.path, parsed(t, tc.body), tc.location) == base; got != tc.same {
			t.Errorf("%s: same request got %v, want %v", tc.name, got, tc.same)
		}
	}
}

// parsed is a body as the gate parses it.
func parsed(t *testing.T, body string) *jsonBody {
	t.Helper()
	v, err := parseJSON([]byte(body))
	if err != nil {
		t.Fatalf("parse %s: %v", body, err)
	}
	return &jsonBody{raw: []byte(body), value: v}
}

// A fingerprint is what the previous versions of the service stored: the
// hash of method, path, location and the body decoded and encoded again
// (numbers as their text). Keys stored by a process of the previous
// version, during a rolling upgrade, still recognise their repeats.
func TestFingerprintIsStable(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"locationId":"loc_1","vehiclePlate":"B-AB 1","priority":"high"}`,
		`{"z":1.50,"a":[1e3,-0,{"b":"<&>"}],"n":null,"t":true,"u":"\u00e9\ud83d\ude00"}`,
		` {"label" : "Brakes",  "estimatedDuration": 30} `,
	} {
		h := sha256.New()
		h.Write([]byte("POST /v1/scheduler/jobs\nloc_2\n"))
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		enc := json.NewEncoder(&again)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		h.Write(again.Bytes())
		if got, want := fingerprint("POST", "/v1/scheduler/jobs", parsed(t, body), "loc_2"), hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("fingerprint of %s: got %s, want %s", body, got, want)
		}
	}
	h := sha256.Sum256([]byte("POST /v1/scheduler/jobs/job_1/deliver\n\n"))
	if got, want := fingerprint("POST", "/v1/scheduler/jobs/job_1/deliver", nil, ""), hex.EncodeToString(h[:]); got != want {
		t.Errorf("fingerprint without a body: got %s, want %s", got, want)
	}
}
