package httpapi

import (
	"bytes"
	"net/http"
)

// bufferedWriter holds a response: for the idempotency middleware until it
// knows whether to send it or the first request's response instead, and
// as the ResponseWriter of an in-process read (MCP tools).
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	// record is the record the answer carries, when the answer said so
	// (appended): setRecordHeaders then need not read it from the body.
	record *record
	// stored is the answer the operation stored with its Idempotency-Key,
	// once it has (nil: not under a key): appended sends it instead of
	// encoding the same record again.
	stored *renderedAnswer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

func (w *bufferedWriter) flush(to http.ResponseWriter) {
	for k, v := range w.header {
		to.Header()[k] = v
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	to.WriteHeader(w.status)
	_, _ = to.Write(w.body.Bytes())
}
