package httpapi

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestETagListed(t *testing.T) {
	t.Parallel()
	etag := *etagOf(workshop.Micros(1764064800123456))
	for _, tc := range []struct {
		list string
		want bool
	}{
		{etag, true},
		{"W/" + etag, true},
		{`"x", ` + etag, true},
		{"*", true},
		{`"x"`, false},
		{"garbage", false},
		{"", false},
	} {
		if got := etagListed(tc.list, etag); got != tc.want {
			t.Errorf("etagListed(%q, %s): got %v, want %v", tc.list, etag, got, tc.want)
		}
	}
}

// An If-None-Match is "*" or a list of entity-tags (RFC 9110), whether
// this API made them or not; anything else is refused.
func TestValidTagList(t *testing.T) {
	t.Parallel()
	etag := *etagOf(workshop.Micros(1764064800123456))
	for _, tc := range []struct {
		list string
		want bool
	}{
		{etag, true},
		{"W/" + etag, true},
		{"*", true},
		{" * ", true},
		{`"x", W/"y",` + etag, true},
		{"\"\", \"\x80\xff\"", true}, // an empty tag; bytes above ASCII (obs-text)
		{"", true},                   // an empty list
		{" , ", true},
		{"garbage", false},
		{`"unterminated`, false},
		{`w/"lower-case weak"`, false},
		{"\"tab\tinside\"", false},
		{`"quote"inside"`, false},
		{`"a" "b"`, false},
		{`*, "a"`, false},
		{"\"del\x7f\"", false},
	} {
		if got := validTagList(tc.list); got != tc.want {
			t.Errorf("validTagList(%q): got %v, want %v", tc.list, got, tc.want)
		}
	}
}

func TestExpectedVersion(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 10, 0, 0, 123456000, time.UTC)
	tag, other := *etagOf(workshop.MicrosOf(at)), *etagOf(workshop.MicrosOf(at) + 1)
	bad := "not-an-etag"
	ptr := func(s string) *string { return &s }
	for _, tc := range []struct {
		name      string
		updatedAt *time.Time
		ifMatch   *string
		ifMatched bool
		code      workshop.Code // "" : no error
	}{
		{"body only", &at, nil, false, ""},
		{"If-Match only", nil, &tag, true, ""},
		{"both the same", &at, &tag, true, ""},
		{"both different", &at, &other, false, workshop.CodePreconditionFailed},
		{"neither", nil, nil, false, workshop.CodeValidationFailed},
		{"not an ETag", &at, &bad, false, workshop.CodeInvalidParameter},
		{"a quoted word", &at, ptr(`"garbage"`), false, workshop.CodeInvalidParameter},
		{"leading zeros", &at, ptr(`"0` + tag[1:]), false, workshop.CodeInvalidParameter},
		{"any", &at, ptr("*"), false, workshop.CodeInvalidParameter},
		{"a list", &at, ptr(tag + ", " + other), false, workshop.CodeInvalidParameter},
	} {
		v, err := expectedVersion(tc.updatedAt, tc.ifMatch)
		if got := workshop.ErrorCode(err); err != nil && got != tc.code || err == nil && tc.code != "" {
			t.Errorf("%s: error %v, want code %q", tc.name, err, tc.code)
			continue
		}
		if err == nil && (v.at != workshop.MicrosOf(at) || v.ifMatch != tc.ifMatched) {
			t.Errorf("%s: got %+v, want version %d (If-Match %v)", tc.name, v, workshop.MicrosOf(at), tc.ifMatched)
		}
	}
}
