package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oapi-codegen/runtime"

	"github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
)

// requestBodies are the generated types of the operations' JSON bodies.
var requestBodies = map[string]func() any{
	"createIntegration":       func() any { return new(oapi.CreateIntegrationJSONRequestBody) },
	"createJob":               func() any { return new(oapi.CreateJobJSONRequestBody) },
	"patchJob":                func() any { return new(oapi.PatchJobJSONRequestBody) },
	"createStep":              func() any { return new(oapi.CreateStepJSONRequestBody) },
	"patchStep":               func() any { return new(oapi.PatchStepJSONRequestBody) },
	"cancelJob":               func() any { return new(oapi.CancelJobJSONRequestBody) },
	"patchTechnician":         func() any { return new(oapi.PatchTechnicianJSONRequestBody) },
	"patchBay":                func() any { return new(oapi.PatchBayJSONRequestBody) },
	"applyPlan":               func() any { return new(oapi.ApplyPlanJSONRequestBody) },
	"previewPlan":             func() any { return new(oapi.PreviewPlanJSONRequestBody) },
	"createWebhook":           func() any { return new(oapi.CreateWebhookJSONRequestBody) },
	"patchWebhook":            func() any { return new(oapi.PatchWebhookJSONRequestBody) },
	"clockIn":                 func() any { return new(oapi.ClockInJSONRequestBody) },
	"clockOut":                func() any { return new(oapi.ClockOutJSONRequestBody) },
	"putCatalogItem":          func() any { return new(oapi.PutCatalogItemJSONRequestBody) },
	"createAbsence":           func() any { return new(oapi.CreateAbsenceJSONRequestBody) },
	"createMaintenanceWindow": func() any { return new(oapi.CreateMaintenanceWindowJSONRequestBody) },
}

// The generated binding takes the gate's parse (ValidatedValue) instead of
// decoding the body again: for every operation's body, its examples in the
// document and bodies with nulls, offsets and lists, what it binds is what
// encoding/json decodes from the bytes.
func TestBindingTheParseIsDecoding(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]string{
		"createJob": {
			`{"locationId":"loc_1","vehiclePlate":"B-AB 1","vehicleMake":"VW","vehicleModel":"Golf","priority":"high","source":"walk_in"}`,
			`{"externalKey":"dms-1","jobNumber":"RO-1","promiseTime":"2026-11-21T17:00:00+01:00","arrivalTime":null}`,
			`{"arrivalTime":"2026-11-21T08:05:30.123456-05:00","promiseTime":null,"vehiclePlate":null}`,
		},
		"patchJob": {`{"updatedAt":"2026-11-21T10:15:30.123456Z","vehiclePlate":null,"promiseTime":"2026-11-22T09:00:00Z","priority":"low"}`},
		"patchStep": {
			`{"updatedAt":"2026-11-21T10:15:30.123456Z","techIds":["tec_1","tec_2"],"bayId":null,"notBefore":null,"phase":2,"estimatedDuration":45}`,
			`{"updatedAt":"2026-11-21T10:15:30.123456Z","techIds":[],"bayId":"bay_1","notBefore":"2026-11-21T11:00:00+09:00","status":"in_progress"}`,
		},
		"createIntegration": {`{"name":"Autoline DMS","systemType":"dms"}`},
		"previewPlan":       {`{"locationId":"loc_1","changes":[{"stepId":"stp_1","techIds":["tec_1"],"bayId":null,"notBefore":"2026-11-21T11:00:00+01:00"}],"technicians":[{"techId":"tec_2","status":"unavailable"}]}`},
		"putCatalogItem":    {`{"name":"Oil change","estimatedDuration":30,"requiredSkills":["engine"],"isActive":false}`},
	}
	seen := 0
	for pattern, op := range operationsOf(doc) {
		rb := op.route.Operation.RequestBody
		if rb == nil {
			continue
		}
		newBody, ok := requestBodies[op.id]
		if !ok {
			t.Errorf("%s (%s) takes a body and is not in requestBodies", op.id, pattern)
			continue
		}
		seen++
		mt := rb.Value.Content.Get("application/json")
		examples := bodies[op.id]
		if mt.Example != nil {
			b, _ := json.Marshal(mt.Example)
			examples = append(examples, string(b))
		}
		for _, ex := range mt.Examples {
			b, _ := json.Marshal(ex.Value.Value)
			examples = append(examples, string(b))
		}
		if len(examples) == 0 {
			t.Errorf("%s: no example body to bind", op.id)
		}
		for _, raw := range examples {
			value, err := parseJSON([]byte(raw))
			if err != nil {
				t.Fatalf("%s: %s: %v", op.id, raw, err)
			}
			decoded, bound := newBody(), newBody()
			if err := json.Unmarshal([]byte(raw), decoded); err != nil {
				t.Fatalf("%s: decode %s: %v", op.id, raw, err)
			}
			if err := runtime.BindJSONValue(value, bound); err != nil {
				t.Errorf("%s: bind %s: %v", op.id, raw, err)
				continue
			}
			if !reflect.DeepEqual(bound, decoded) {
				t.Errorf("%s: %s\nbound   %#v\ndecoded %#v", op.id, raw, bound, decoded)
			}
		}
	}
	if seen != len(requestBodies) {
		t.Errorf("%d operations take a body, requestBodies has %d", seen, len(requestBodies))
	}
}
