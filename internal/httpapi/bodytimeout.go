package httpapi

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// deadlineBody cuts a request body that trickles: the whole body must
// arrive within the body timeout of the request's start. The deadline is
// on the connection's reads, set when a request with a body begins and
// lifted once the body is read to its end, so that a handler that answers
// for long after (a stream) is not cut. Slow headers are net/http's
// ReadHeaderTimeout.
type deadlineBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	lifted  bool
}

func newDeadlineBody(w http.ResponseWriter, body io.ReadCloser, timeout time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return body // a connection without deadlines (a test's recorder)
	}
	return &deadlineBody{ReadCloser: body, rc: rc, timeout: timeout}
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.lifted:
		b.lifted = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = &workshop.Error{Code: workshop.CodeInvalidJSON,
			Detail: "The body did not arrive within " + b.timeout.String() + " of the request's start; send it at once."}
	}
	return n, err
}
