package workshop

import (
	"errors"
	"fmt"
)

// Code is a stable machine name of an error (contract section 2). The HTTP
// API maps each one to its status in one place; the MCP server shows them as
// tool errors.
type Code string

const (
	CodeInvalidJSON           Code = "invalid_json"
	CodeUnknownField          Code = "unknown_field"
	CodeInvalidParameter      Code = "invalid_parameter"
	CodeMissingKey            Code = "missing_key"
	CodeInvalidKey            Code = "invalid_key"
	CodeKeyExpired            Code = "key_expired"
	CodeKeyRevoked            Code = "key_revoked"
	CodeInsufficientScope     Code = "insufficient_scope"
	CodePlanUpgradeRequired   Code = "plan_upgrade_required"
	CodeLocationForbidden     Code = "location_forbidden"
	CodeOriginForbidden       Code = "origin_forbidden"
	CodeNotFound              Code = "not_found"
	CodeMethodNotAllowed      Code = "method_not_allowed"
	CodeStaleUpdatedAt        Code = "stale_updated_at"
	CodePreconditionFailed    Code = "precondition_failed"
	CodeDayCloseInProgress    Code = "day_close_in_progress"
	CodeInvalidTransition     Code = "invalid_transition"
	CodeAlreadyClockedIn      Code = "already_clocked_in"
	CodeNotClockedIn          Code = "not_clocked_in"
	CodeIdempotencyInProgress Code = "idempotency_in_progress"
	CodeBodyTooLarge          Code = "body_too_large"
	CodeUnsupportedMediaType  Code = "unsupported_media_type"
	CodeValidationFailed      Code = "validation_failed"
	CodeIdempotencyKeyReused  Code = "idempotency_key_reused"
	CodeRateLimited           Code = "rate_limited"
	CodeInternal              Code = "internal"
)

// FieldError is one invalid field: its JSON name (camelCase, with [i] for an
// array element), a code and a message for people.
type FieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error is an error the caller can act on. Detail is written for the
// caller; the cause of an internal error is never put in it.
type Error struct {
	Code   Code
	Detail string
	Field  string       // the first offending field, when there is one
	Fields []FieldError // every offending field of a validation error
	// CurrentUpdatedAt is set on stale_updated_at and precondition_failed.
	CurrentUpdatedAt *Micros
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Detail, e.Field)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Detail)
}

// Errorf makes an Error with a formatted detail.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// NotFound is the error for a record the caller cannot see: missing, of
// another organisation, or (location key) of another location alike, so that
// ids of others cannot be probed.
func NotFound(what string) *Error {
	return Errorf(CodeNotFound, "No such %s.", what)
}

// ErrorCode is the code of err, or CodeInternal when err is not an *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Validation collects field errors; Err returns nil when there are none.
type Validation struct {
	fields []FieldError
}

// Add records an invalid field with the code "invalid".
func (v *Validation) Add(field, format string, args ...any) {
	v.AddCode(field, "invalid", format, args...)
}

// AddCode records an invalid field with its own code (e.g. "taken").
func (v *Validation) AddCode(field, code, format string, args ...any) {
	v.fields = append(v.fields, FieldError{Field: field, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Check adds the fields of a validation_failed error to v, so that a
// request hears of every invalid field at once; any other error (or nil)
// is returned, for the caller to stop on.
func (v *Validation) Check(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code == CodeValidationFailed {
		v.fields = append(v.fields, e.Fields...)
		return nil
	}
	return err
}

// Err is a validation_failed error naming the first field, or nil.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return ValidationError(v.fields...)
}

// ValidationError is a validation_failed error for the fields.
func ValidationError(fields ...FieldError) *Error {
	return &Error{Code: CodeValidationFailed, Detail: fields[0].Message, Field: fields[0].Field, Fields: fields}
}

// Invalid is a validation_failed error for one field.
func Invalid(field, format string, args ...any) *Error {
	var v Validation
	v.Add(field, format, args...)
	return v.Err().(*Error)
}

// UnderField is err with the fields it names put under prefix, the item
// of a list the request sent them in ("changes[0]." makes bayId
// changes[0].bayId); any other error is returned as it is.
func UnderField(err error, prefix string) error {
	var e *Error
	if !errors.As(err, &e) || e.Field == "" && len(e.Fields) == 0 {
		return err
	}
	out := *e
	if out.Field != "" {
		out.Field = prefix + out.Field
	}
	out.Fields = make([]FieldError, len(e.Fields))
	for i, f := range e.Fields {
		f.Field = prefix + f.Field
		out.Fields[i] = f
	}
	return &out
}
