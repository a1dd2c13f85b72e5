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

// TestEveryEventIsAWebhook: each event, ping included, is a webhook of the
// document (x-webhooks, which Redoc renders and generators can read), its
// body the event's schema, its headers the signing ones.
func TestEveryEventIsAWebhook(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := doc.Extensions["x-webhooks"].(map[string]any)
	for _, event := range append([]string{workshop.EventPing}, workshop.EventNames...) {
		post, _ := dig(hooks, event, "post").(map[string]any)
		if post == nil {
			t.Errorf("%s: no x-webhooks entry", event)
			continue
		}
		ref, _ := dig(post, "requestBody", "content", "application/json", "schema", "$ref").(string)
		if want := "#/components/schemas/" + eventSchemaName(event); ref != want {
			t.Errorf("%s: body %q, want %s", event, ref, want)
		}
		params, _ := post["parameters"].([]any)
		if len(params) != 7 {
			t.Errorf("%s: %d header parameters, want the 7 delivery headers", event, len(params))
		}
	}
	if len(hooks) != len(workshop.EventNames)+1 {
		t.Errorf("x-webhooks has %d entries, want %d (the events and ping)", len(hooks), len(workshop.EventNames)+1)
	}
}

// dig walks nested maps by keys; nil when a key is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
