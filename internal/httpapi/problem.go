package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// statusOf maps every domain error code to its HTTP status: the one place
// where domain errors become HTTP.
var statusOf = map[workshop.Code]int{
	workshop.CodeInvalidJSON:           http.StatusBadRequest,
	workshop.CodeUnknownField:          http.StatusBadRequest,
	workshop.CodeInvalidParameter:      http.StatusBadRequest,
	workshop.CodeMissingKey:            http.StatusUnauthorized,
	workshop.CodeInvalidKey:            http.StatusUnauthorized,
	workshop.CodeKeyExpired:            http.StatusUnauthorized,
	workshop.CodeKeyRevoked:            http.StatusUnauthorized,
	workshop.CodeInsufficientScope:     http.StatusForbidden,
	workshop.CodePlanUpgradeRequired:   http.StatusForbidden,
	workshop.CodeLocationForbidden:     http.StatusForbidden,
	workshop.CodeOriginForbidden:       http.StatusForbidden,
	workshop.CodeNotFound:              http.StatusNotFound,
	workshop.CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	workshop.CodeStaleUpdatedAt:        http.StatusConflict,
	workshop.CodeDayCloseInProgress:    http.StatusConflict,
	workshop.CodePreconditionFailed:    http.StatusPreconditionFailed,
	workshop.CodeInvalidTransition:     http.StatusConflict,
	workshop.CodeAlreadyClockedIn:      http.StatusConflict,
	workshop.CodeNotClockedIn:          http.StatusConflict,
	workshop.CodeIdempotencyInProgress: http.StatusConflict,
	workshop.CodeBodyTooLarge:          http.StatusRequestEntityTooLarge,
	workshop.CodeUnsupportedMediaType:  http.StatusUnsupportedMediaType,
	workshop.CodeValidationFailed:      http.StatusUnprocessableEntity,
	workshop.CodeIdempotencyKeyReused:  http.StatusUnprocessableEntity,
	workshop.CodeRateLimited:           http.StatusTooManyRequests,
	workshop.CodeInternal:              http.StatusInternalServerError,
}

// problem is an RFC 9457 problem details body.
type problem struct {
	Type             string                `json:"type"`
	Title            string                `json:"title"`
	Status           int                   `json:"status"`
	Code             workshop.Code         `json:"code"`
	Detail           string                `json:"detail"`
	Field            string                `json:"field,omitempty"`
	Errors           []workshop.FieldError `json:"errors,omitempty"`
	RequestID        string                `json:"requestId"`
	CurrentUpdatedAt *workshop.Micros      `json:"currentUpdatedAt,omitempty"`
}

// problemTypeBase prefixes the code to make the problem type URI.
const problemTypeBase = "https://github.com/workshop-platform/workshop/blob/main/docs/errors.md#"

// writeError answers err as a problem. A domain error shows its detail; any
// other error is an internal one: the caller sees only the request id, and
// the cause goes to the log line of the request.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *workshop.Error
	if !errors.As(err, &e) {
		noteCause(r, err)
		e = &workshop.Error{Code: workshop.CodeInternal,
			Detail: "Something went wrong on our side. Quote the requestId to support."}
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	stateOf(r.Context()).code = e.Code
	rid := requestIDOf(r.Context())
	p := problem{Type: problemTypeBase + string(e.Code), Title: titleOf(e.Code), Status: status, Code: e.Code,
		Detail: e.Detail, Field: e.Field, Errors: e.Fields, RequestID: rid, CurrentUpdatedAt: e.CurrentUpdatedAt}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="workshop"`)
	}
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // details quote what was sent (<, >, &) for people, not for an HTML page
	_ = enc.Encode(p)
}

// titleOf makes "Validation failed" of validation_failed.
func titleOf(c workshop.Code) string {
	s := strings.ReplaceAll(string(c), "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
