package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzPlainStrings: whenever the fast list parser accepts text, it reads
// what encoding/json reads.
func FuzzPlainStrings(f *testing.F) {
	for _, s := range []string{"[\"\xef\"]", `[]`, `["a"]`, `["a","b"]`, `["a", "b"]`, `["ä","x\"y"]`, `["a",]`, `[,"a"]`, `["a""b"]`, `[1]`, `["a\\u0041"]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := plainStrings[string]([]byte(text))
		if !ok {
			return
		}
		var want []string
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatalf("plainStrings accepted %q, which encoding/json refuses: %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("plainStrings(%q) = %q, want %q", text, got, want)
		}
	})
}

func TestPlainStringsReadsWhatJSONWrites(t *testing.T) {
	t.Parallel()
	for _, list := range [][]string{{}, {"tech_1"}, {"a", "b", "c"}, {"Bremsen prüfen", "x"}} {
		b, _ := json.Marshal(list)
		got, ok := plainStrings[string](b)
		if !ok || !reflect.DeepEqual(got, list) {
			t.Errorf("plainStrings(%s) = %q, %v; want %q, true", b, got, ok, list)
		}
	}
}
