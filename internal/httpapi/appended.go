package httpapi

import (
	"fmt"
	"net/http"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
)

// appended is a JSON response written as the generated responses write
// theirs (Content-Type, the ETag when there is one, the status, the body
// and a newline), its body (a job, a step or a job detail) appended by
// appendBody instead of encoding/json, which spends most of a job's cost on
// its nullable and time fields. It answers the job and step operations;
// the bytes are the same (TestAppendJSON).
type appended struct {
	status int
	etag   *string
	body   any // oapi.Job, oapi.Step or oapi.JobDetail
	size   int // the body's expected length, for the first allocation
}

// appendBody appends a job, a step or a job detail as encoding/json writes
// it; ok is false for any other body.
func appendBody(b []byte, body any) (_ []byte, ok bool) {
	switch v := body.(type) {
	case oapi.Job:
		return appendJob(b, v), true
	case oapi.Step:
		return appendStep(b, v), true
	case oapi.JobDetail:
		return appendJobDetail(b, v), true
	}
	return b, false
}

func (r appended) write(w http.ResponseWriter) error {
	var stored *renderedAnswer
	if bw, ok := w.(*bufferedWriter); ok {
		bw.record = recordOf(r.body)
		stored = bw.stored
	}
	w.Header().Set("Content-Type", "application/json")
	if r.etag != nil {
		w.Header().Set("ETag", *r.etag)
	}
	w.WriteHeader(r.status)
	if stored != nil && stored.status == r.status && stored.body != nil {
		// The operation stored this very answer with its Idempotency-Key,
		// encoded from the same result: sent as stored, not encoded twice.
		_, err := w.Write(stored.body)
		return err
	}
	b, ok := appendBody(make([]byte, 0, r.size), r.body)
	if !ok {
		return fmt.Errorf("appended: a body of type %T", r.body)
	}
	_, err := w.Write(append(b, '\n'))
	return err
}

func (r appended) VisitGetJobResponse(w http.ResponseWriter) error       { return r.write(w) }
func (r appended) VisitGetJobDetailResponse(w http.ResponseWriter) error { return r.write(w) }
func (r appended) VisitCreateJobResponse(w http.ResponseWriter) error    { return r.write(w) }
func (r appended) VisitPatchJobResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r appended) VisitDeliverJobResponse(w http.ResponseWriter) error   { return r.write(w) }
func (r appended) VisitCancelJobResponse(w http.ResponseWriter) error    { return r.write(w) }
func (r appended) VisitCreateStepResponse(w http.ResponseWriter) error   { return r.write(w) }
func (r appended) VisitPatchStepResponse(w http.ResponseWriter) error    { return r.write(w) }

// Expected body lengths: a job with a few steps, a detail with ten.
const (
	jobSize    = 2048
	stepSize   = 512
	detailSize = 8192
)
