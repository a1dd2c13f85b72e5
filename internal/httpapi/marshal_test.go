package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
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
		var st oapi.Step
		fill(reflect.ValueOf(&st).Elem(), s, times[i%2], i)
		compare(t, "step", appendStep, st)
		var j oapi.Job
		fill(reflect.ValueOf(&j).Elem(), s, times[i%2], i)
		compare(t, "job", appendJob, j)
		var d oapi.JobDetail
		fill(reflect.ValueOf(&d).Elem(), s, times[i%2], i)
		compare(t, "job detail", appendJobDetail, d)
	}

	// Null, never set, empty and nil: each as encoding/json writes it.
	var bare oapi.Step
	bare.BayId.SetNull()
	compare(t, "bare step", appendStep, bare)
	bare.TechIds = []string{}
	compare(t, "step with no technicians", appendStep, bare)
	var j oapi.Job
	j.ArrivalTime.SetNull()
	j.VehiclePlate.SetNull()
	compare(t, "bare job", appendJob, j)
	var none []oapi.Step
	j.Steps = &none
	compare(t, "job with nil steps", appendJob, j)
	empty := []oapi.Step{}
	j.Steps = &empty
	compare(t, "job with no steps", appendJob, j)
	var d oapi.JobDetail
	d.ActualEnd.SetNull()
	d.Promise.SlackMinutes.SetNull()
	d.Verification.VerifiedAt.SetNull()
	d.Holds = []oapi.Hold{{}}
	d.Holds[0].End.SetNull()
	compare(t, "bare job detail", appendJobDetail, d)
}

func compare[T any](t *testing.T, what string, appendJSON func([]byte, T) []byte, v T) {
	t.Helper()
	got := appendJSON([]byte("prefix:"), v)
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(got) != "prefix:"+string(want) {
		t.Errorf("%s:\n got %s\nwant prefix:%s", what, got, want)
	}
}

var timeType = reflect.TypeOf(time.Time{})

// fill sets every field of a generated struct, nested ones too, to a
// value of its kind: a string from s, times at, numbers from n.
func fill(v reflect.Value, s string, at time.Time, n int) {
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(at))
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s, at, n)
		}
	case v.Kind() == reflect.String:
		v.SetString(s)
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		v.SetInt(int64(n*1_000_003 - 7)) // negative at 0; an audit timestamp too
	case v.Kind() == reflect.Bool:
		v.SetBool(n%2 == 0)
	case v.Kind() == reflect.Slice: // two elements
		list := reflect.MakeSlice(v.Type(), 2, 2)
		fill(list.Index(0), s, at, n)
		fill(list.Index(1), "tec_2", at, n+1)
		v.Set(list)
	case v.Kind() == reflect.Pointer: // *[]oapi.Step
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), s, at, n)
		v.Set(p)
	case v.Kind() == reflect.Map: // a nullable.Nullable[T]
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, s, at, n)
		m.SetMapIndex(reflect.ValueOf(true), e)
		v.Set(m)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}
