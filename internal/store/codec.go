package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// jsonText encodes a value kept as JSON text (lists of strings, settings).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: encode %T: %v", v, err)) // only plain data is stored this way
	}
	return string(b)
}

// jsonList scans JSON text into a value.
type jsonList[T any] struct{ v *T }

func (j jsonList[T]) Scan(src any) error {
	var b []byte
	switch x := src.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case nil:
		return nil
	default:
		return fmt.Errorf("store: cannot scan %T as JSON", src)
	}
	switch v := any(j.v).(type) { // the lists read on every request, without reflection
	case *[]string:
		if l, ok := plainStrings[string](b); ok {
			*v = l
			return nil
		}
	case *[]workshop.Scope:
		if l, ok := plainStrings[workshop.Scope](b); ok {
			*v = l
			return nil
		}
	}
	return json.Unmarshal(b, j.v)
}

// plainStrings parses a JSON array of strings without escapes, as this
// package writes them (["a","b"], spaces allowed between items); anything
// else is not ok and left to encoding/json.
func plainStrings[S ~string](b []byte) ([]S, bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' || !utf8.Valid(b) {
		return nil, false
	}
	out := []S{}
	rest := b[1 : len(b)-1]
	for len(rest) > 0 {
		if rest[0] != '"' {
			return nil, false
		}
		end := bytes.IndexByte(rest[1:], '"') + 1
		if end == 0 {
			return nil, false
		}
		item := rest[1:end]
		for _, c := range item {
			if c == '\\' || c < 0x20 {
				return nil, false
			}
		}
		out = append(out, S(item))
		rest = bytes.TrimLeft(rest[end+1:], " ")
		if len(rest) > 0 {
			if rest[0] != ',' {
				return nil, false
			}
			rest = bytes.TrimLeft(rest[1:], " ")
			if len(rest) == 0 {
				return nil, false
			}
		}
	}
	return out, true
}

// nullMicros maps an optional audit timestamp to and from a nullable integer.
func nullMicros(m *workshop.Micros) sql.NullInt64 {
	if m == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*m), Valid: true}
}

func microsPtr(n sql.NullInt64) *workshop.Micros {
	if !n.Valid {
		return nil
	}
	m := workshop.Micros(n.Int64)
	return &m
}

// nullString maps "" to NULL, for optional references.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// scanner is a row to scan: *sql.Row, *sql.Rows or this package's row.
type scanner interface{ Scan(dest ...any) error }
