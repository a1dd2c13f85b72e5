package store

import (
	"database/sql"
	"encoding/json"
	"fmt"

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
	return json.Unmarshal(b, j.v)
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
