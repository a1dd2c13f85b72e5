package oapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"
)

// tricky strings: quotes, escapes, HTML, control characters, invalid
// UTF-8, the two line separators JavaScript refuses, non-ASCII text.
var tricky = []string{"", "RO-2026-0001", `a"b\c`, "<b>&amp;</b>", "tab\there\nline\r\x00\x01\x1f\b\f", "bad \xff\xfe utf-8",
	"sep \u2028 \u2029", "Müller Straße 5, 東京"}

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("", 5*3600+30*60)
	times := []time.Time{time.Date(2026, 11, 21, 9, 30, 0, 0, zone), time.Date(2026, 3, 29, 1, 59, 59, 123456789, time.UTC)}
	for i, s := range tricky {
		// Every field set, by reflection, so that a field added to the
		// OpenAPI document and missing here fails.
		var st Step
		fill(reflect.ValueOf(&st).Elem(), s, times[i%2], i)
		compare(t, "step", st.AppendJSON, st)
		var j Job
		fill(reflect.ValueOf(&j).Elem(), s, times[i%2], i)
		steps := []Step{st, st}
		j.Steps = &steps
		compare(t, "job", j.AppendJSON, j)
	}

	// Null, never set, empty and nil: each as encoding/json writes it.
	var bare Step
	bare.BayId.SetNull()
	compare(t, "bare step", bare.AppendJSON, bare)
	bare.TechIds = []string{}
	compare(t, "step with no technicians", bare.AppendJSON, bare)
	var j Job
	j.ArrivalTime.SetNull()
	j.VehiclePlate.SetNull()
	compare(t, "bare job", j.AppendJSON, j)
	var none []Step
	j.Steps = &none
	compare(t, "job with nil steps", j.AppendJSON, j)
	empty := []Step{}
	j.Steps = &empty
	compare(t, "job with no steps", j.AppendJSON, j)
}

func compare(t *testing.T, what string, appendJSON func([]byte) []byte, v any) {
	t.Helper()
	got := appendJSON([]byte("prefix:"))
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(got) != "prefix:"+string(want) {
		t.Errorf("%s:\n got %s\nwant prefix:%s", what, got, want)
	}
}

// fill sets every field of a generated struct to a value of its kind.
func fill(v reflect.Value, s string, at time.Time, n int) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch x := f.Addr().Interface().(type) {
		case *nullable.Nullable[string]:
			x.Set(s)
		case *nullable.Nullable[time.Time]:
			x.Set(at)
		case *time.Time:
			*x = at
		default:
			fillValue(f, s, at, n)
		}
	}
}

func fillValue(f reflect.Value, s string, at time.Time, n int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Int, reflect.Int64:
		f.SetInt(int64(n*1_000_003 - 7)) // negative at 0; an audit timestamp too
	case reflect.Slice:
		if f.Type().Elem().Kind() == reflect.String {
			f.Set(reflect.ValueOf([]string{s, "tec_2"}).Convert(f.Type()))
		}
	case reflect.Map: // a nullable.Nullable[T] of another T
		m := reflect.MakeMap(f.Type())
		e := reflect.New(f.Type().Elem()).Elem()
		fillValue(e, s, at, n)
		m.SetMapIndex(reflect.ValueOf(true), e)
		f.Set(m)
	}
}
