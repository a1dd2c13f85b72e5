package httpapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// messageOf says in words what the schema rule a value broke asks for:
// the validator's own reasons quote regular expressions and Go-flavoured
// JSON, which a person cannot act on.
func messageOf(field string, se *openapi3.SchemaError) string {
	s := se.Schema
	if s == nil {
		return field + " is not valid."
	}
	switch se.SchemaField {
	case "required":
		return field + " is required."
	case "nullable":
		return field + " cannot be null."
	case "type":
		return field + " must be " + typeNames(s) + "."
	case "enum":
		return field + " must be one of " + enumList(s.Enum) + "."
	case "format", "pattern":
		if what := formatName(s); what != "" {
			return field + " must be " + what + "."
		}
		if s.Example != nil {
			return field + " is not in the expected form, like " + fmt.Sprint(s.Example) + "."
		}
		return field + " is not in the expected form."
	case "minLength":
		if s.MinLength == 1 {
			return field + " cannot be empty."
		}
		return fmt.Sprintf("%s is too short: at least %d characters.", field, s.MinLength)
	case "maxLength":
		return fmt.Sprintf("%s is too long: at most %d characters.", field, deref(s.MaxLength))
	case "minItems":
		return fmt.Sprintf("%s needs at least %d item(s).", field, s.MinItems)
	case "maxItems":
		return fmt.Sprintf("%s has too many items: at most %d.", field, deref(s.MaxItems))
	case "uniqueItems":
		return field + " lists an item twice."
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
		return field + " must be " + rangeOf(s) + "."
	}
	return field + " is not valid."
}

// typeNames names a schema's JSON types for people.
func typeNames(s *openapi3.Schema) string {
	names := map[string]string{"string": "a string", "integer": "a whole number", "number": "a number",
		"boolean": "true or false", "array": "a list", "object": "an object"}
	var out []string
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			out = append(out, names[t])
		}
	}
	if len(out) == 0 {
		return "a value of another type"
	}
	if s.Nullable {
		out = append(out, "null")
	}
	return strings.Join(out, " or ")
}

// enumList is "low, normal, high or urgent".
func enumList(values []any) string {
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = fmt.Sprint(v)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// formatName names a string format for people, "" for none.
func formatName(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return "a date and time with an offset (RFC 3339), like 2026-11-21T10:15:30+01:00"
	case "date":
		return "a date, like 2026-11-21"
	case "email":
		return "an email address"
	case "uri":
		return "an absolute URL"
	}
	return ""
}

// expected names what a value of s must be: its format, else its type.
func expected(s *openapi3.Schema) string {
	if what := formatName(s); what != "" {
		return what
	}
	return typeNames(s)
}

// rangeOf is "between 1 and 10080", "at least 0" or "at most 200".
func rangeOf(s *openapi3.Schema) string {
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch {
	case s.Min != nil && s.Max != nil:
		return "between " + num(s.Min) + " and " + num(s.Max)
	case s.Min != nil:
		return "at least " + num(s.Min)
	case s.Max != nil:
		return "at most " + num(s.Max)
	}
	return "in range"
}
