package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// etagOf is a record's version as an ETag: its updatedAt, which every
// change makes strictly later. The one definition of the API's ETags.
func etagOf(m workshop.Micros) *string {
	s := `"` + strconv.FormatInt(int64(m), 36) + `"`
	return &s
}

// versionOfETag reads an ETag of etagOf back (weak or strong alike); ok is
// false for anything etagOf cannot have made, a quoted word that happens
// to read as a number included: no record is older than earliestVersion.
func versionOfETag(tag string) (_ workshop.Micros, ok bool) {
	tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return 0, false
	}
	digits := tag[1 : len(tag)-1]
	n, err := strconv.ParseInt(digits, 36, 64)
	if err != nil || strconv.FormatInt(n, 36) != digits || workshop.Micros(n) < earliestVersion {
		return 0, false
	}
	return workshop.Micros(n), true
}

// earliestVersion is before any record's updatedAt: 2020-01-01, years
// before the service existed.
var earliestVersion = workshop.MicrosOf(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))

// version is the updatedAt a write was made against, and whether If-Match
// named it: a mismatch is then the failed HTTP precondition (412), else the
// stale body (409).
type version struct {
	at      workshop.Micros
	ifMatch bool
}

// expectedVersion is the version a PATCH was made against: the body's
// updatedAt or the If-Match ETag. Both sent must name the same version: a
// request naming two cannot be made against the current one, so it is
// precondition_failed before anything is read or applied.
func expectedVersion(updatedAt *time.Time, ifMatch *string) (version, error) {
	v, sent, err := ifMatchVersion(ifMatch)
	if err != nil {
		return version{}, err
	}
	switch {
	case updatedAt != nil && sent && workshop.MicrosOf(*updatedAt) != v.at:
		return version{}, workshop.Errorf(workshop.CodePreconditionFailed,
			"If-Match and updatedAt name different versions of the record; send one of them, or both naming the same version.")
	case sent:
		return v, nil
	case updatedAt != nil:
		return version{at: workshop.MicrosOf(*updatedAt)}, nil
	}
	var vs workshop.Validation
	vs.AddCode("updatedAt", "required", "updatedAt is required: send the record's current updatedAt (or its ETag as If-Match).")
	return version{}, vs.Err()
}

// ifMatchVersion reads an If-Match header; sent is false without one.
func ifMatchVersion(ifMatch *string) (_ version, sent bool, _ error) {
	if ifMatch == nil {
		return version{}, false, nil
	}
	at, ok := versionOfETag(*ifMatch)
	if !ok {
		return version{}, true, &workshop.Error{Code: workshop.CodeInvalidParameter, Field: "If-Match",
			Detail: "If-Match is not an ETag this API returned: send the one ETag header of your last read as it was (not a list, not *)."}
	}
	return version{at: at, ifMatch: true}, true, nil
}

// failed is the error of a write made against v: a stale version named by
// If-Match is precondition_failed, nothing applied either way.
func (v version) failed(err error) error {
	var e *workshop.Error
	if !v.ifMatch || !errors.As(err, &e) || e.Code != workshop.CodeStaleUpdatedAt {
		return err
	}
	return &workshop.Error{Code: workshop.CodePreconditionFailed, CurrentUpdatedAt: e.CurrentUpdatedAt,
		Detail: "If-Match does not name the record's current version: it changed since you read it. Read it again (its ETag) and reapply your change."}
}

// ifNoneMatch answers a read (GET, HEAD) with 304 Not Modified and no
// body when the response's ETag is one of the request's If-None-Match tags
// (weak comparison, "*" for any).
func ifNoneMatch(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	tags := r.Header.Get("If-None-Match")
	if tags == "" || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return w
	}
	return &notModifiedWriter{ResponseWriter: w, tags: tags}
}

// checkIfNoneMatch refuses a read whose If-None-Match is not "*" or a
// list of entity-tags (RFC 9110 section 8.8.3: "abc", W/"abc", a tag of
// printable ASCII or bytes above it between quotes): 400
// invalid_parameter naming the header, as a malformed If-Match is, rather
// than a 200 that hides the client's mistake. A tag this API never made is
// well formed and only matches nothing. (A control character other than
// a tab never gets here: Go's HTTP server refuses such a header itself,
// see docs/errors.md.)
func checkIfNoneMatch(r *http.Request) error {
	tags, sent := r.Header["If-None-Match"]
	if !sent || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil
	}
	for _, list := range tags {
		if !validTagList(list) {
			return &workshop.Error{Code: workshop.CodeInvalidParameter, Field: "If-None-Match",
				Detail: `If-None-Match is not "*" or a list of ETags: send the ETag header of your last read as it was.`}
		}
	}
	return nil
}

// validTagList tells whether s is "*" or a comma-separated list of
// entity-tags, empty elements (an empty list) and spaces or tabs around
// them allowed.
func validTagList(s string) bool {
	if strings.Trim(s, " \t") == "*" {
		return true
	}
	for _, tag := range strings.Split(s, ",") {
		tag = strings.Trim(tag, " \t")
		if tag == "" {
			continue
		}
		tag = strings.TrimPrefix(tag, "W/")
		if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' {
			return false
		}
		for i := 1; i < len(tag)-1; i++ {
			if c := tag[i]; c < 0x21 || c == '"' || c == 0x7f {
				return false
			}
		}
	}
	return true
}

type notModifiedWriter struct {
	http.ResponseWriter
	tags        string
	wroteHeader bool
	discard     bool // 304 sent: the body is not
}

func (w *notModifiedWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	if code == http.StatusOK && etagListed(w.tags, w.Header().Get("ETag")) {
		w.discard = true
		w.Header().Del("Content-Type")
		w.Header().Del("Content-Length")
		code = http.StatusNotModified
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *notModifiedWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.discard {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *notModifiedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// etagListed tells whether etag is in an If-None-Match list.
func etagListed(list, etag string) bool {
	at, ok := versionOfETag(etag)
	if !ok {
		return false
	}
	for _, tag := range strings.Split(list, ",") {
		if strings.TrimSpace(tag) == "*" {
			return true
		}
		if v, ok := versionOfETag(tag); ok && v == at {
			return true
		}
	}
	return false
}

// ifMatchOptions adds an If-Match precondition to a write that takes no
// version of its own (deliver, cancel): the store checks it in the write's
// transaction.
func ifMatchOptions(ifMatch *string, opts ...store.WriteOption) (version, []store.WriteOption, error) {
	v, sent, err := ifMatchVersion(ifMatch)
	if sent && err == nil {
		opts = append(opts, store.IfUnchanged(v.at))
	}
	return v, opts, err
}
