package jsonenc_test

import (
	"encoding/json"
	"testing"

	"github.com/workshop-platform/workshop/internal/jsonenc"
)

func TestStringIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `quote " backslash \`, "<b>&</b>", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"ünïcødé €", "line\u2028para\u2029", "bad \xff utf-8 \xc3", "emoji 🚗"} {
		want, _ := json.Marshal(s)
		if got := jsonenc.String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("<a href=\"x\">\u2028\xff</a>")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := jsonenc.String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestStringsIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, list := range [][]string{nil, {}, {"a"}, {"a", "<b>"}} {
		want, _ := json.Marshal(list)
		if got := jsonenc.Strings(nil, list); string(got) != string(want) {
			t.Errorf("Strings(%q) = %s, want %s", list, got, want)
		}
	}
}
