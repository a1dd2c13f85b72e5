package httpapi

import "net/http"

// appended is a JSON response written as the generated responses write
// theirs (Content-Type, the ETag when there is one, the status, the body
// and a newline), its body appended by an oapi type's AppendJSON instead of
// encoding/json, which spends most of a job's cost on its nullable and time
// fields. It answers the job and step operations; the bytes are the same
// (oapi.TestAppendJSON).
type appended struct {
	status int
	etag   *string
	body   jsonAppender
	size   int // the body's expected length, for the first allocation
}

type jsonAppender interface{ AppendJSON(b []byte) []byte }

func (r appended) write(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	if r.etag != nil {
		w.Header().Set("ETag", *r.etag)
	}
	w.WriteHeader(r.status)
	_, err := w.Write(append(r.body.AppendJSON(make([]byte, 0, r.size)), '\n'))
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
