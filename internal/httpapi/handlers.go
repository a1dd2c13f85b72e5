package httpapi

import (
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/webhooks"
)

// handlers implements the generated strict server interface: each one
// reads its typed request, calls the store and returns a typed response or
// an error for writeError.
type handlers struct {
	store       Store
	now         func() time.Time
	arrivalSkew time.Duration
	// webhookGuard checks webhook URLs (the SSRF guard); nil: the strict one.
	webhookGuard *webhooks.Guard
	plans        *planning.Service // the locations' plans (plan.go, detail.go)
}

var _ oapi.StrictServerInterface = (*handlers)(nil)

// optional maps "" to null.
func optional(s string) nullable.Nullable[string] {
	if s == "" {
		return nullOf[string]()
	}
	return nullable.NewNullableWithValue(s)
}

// cursorOf is a page's nextCursor, null on the last page.
func cursorOf(next *string) nullable.Nullable[string] {
	if next == nil {
		return nullOf[string]()
	}
	return nullable.NewNullableWithValue(*next)
}

// mapList presents every element of a list.
func mapList[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
