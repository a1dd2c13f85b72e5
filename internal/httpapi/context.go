package httpapi

import (
	"context"
	"net/http"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// reqState is what the middleware learns about a request, kept in its
// context so that the log line at the end can tell it.
type reqState struct {
	id        string
	principal *workshop.Principal
	operation string
	cause     error         // the internal error behind a 500, for the log only
	code      workshop.Code // the code of the problem answered, if any
	bodyCut   bool          // the body ended before it was whole: the client hung up mid-body
}

type stateKey struct{}

func stateOf(ctx context.Context) *reqState {
	s, _ := ctx.Value(stateKey{}).(*reqState)
	if s == nil {
		return &reqState{}
	}
	return s
}

func requestIDOf(ctx context.Context) string { return stateOf(ctx).id }

// principalOf is the authenticated caller; the middleware guarantees one
// before any operation handler runs.
func principalOf(ctx context.Context) *workshop.Principal { return stateOf(ctx).principal }

func noteCause(r *http.Request, err error) { stateOf(r.Context()).cause = err }
