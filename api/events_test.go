package api_test

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// eventSchemaName is the component schema documenting an event's delivery
// body: job.created -> JobCreatedEvent, bay.status_changed ->
// BayStatusChangedEvent.
func eventSchemaName(event string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(event, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String() + "Event"
}

// TestEveryEventHasAPayloadSchema: each subscribable event, and ping, has
// its schema, naming it as its only event value (the /docs page renders them).
func TestEveryEventHasAPayloadSchema(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, event := range append([]string{workshop.EventPing}, workshop.EventNames...) {
		ref := doc.Components.Schemas[eventSchemaName(event)]
		if ref == nil {
			t.Errorf("%s: no schema %s", event, eventSchemaName(event))
			continue
		}
		if p := ref.Value.Properties["event"]; p == nil || len(p.Value.Enum) != 1 || p.Value.Enum[0] != event {
			t.Errorf("%s: schema %s does not name it as its event", event, eventSchemaName(event))
		}
	}
}
