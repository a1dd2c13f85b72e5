package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Read answers a GET of a REST path (with its query) for a caller that is
// already authenticated, in-process, through the very routing,
// authorisation (plan and scope), parameter validation and handlers of
// /v1: the status and the body are what the same GET over HTTP would
// answer, byte for byte. The MCP tools are built on it, so a tool's result
// is the REST read's. Only GET is ever routed: Read cannot write.
//
// urlPath is escaped as in a request line (a path parameter with a "/" is
// sent as %2F). The request id is the one of the request ctx belongs to
// (the MCP call's X-Request-Id), or a new one outside a request.
func (s *Server) Read(ctx context.Context, p *workshop.Principal, urlPath string, query url.Values) (status int, body []byte) {
	outer := stateOf(ctx)
	st := &reqState{id: outer.id, principal: p}
	if st.id == "" {
		st.id = workshop.NewID(workshop.PrefixRequest)
	}
	ctx = context.WithValue(ctx, stateKey{}, st)
	w := &bufferedWriter{header: http.Header{}}
	target := urlPath
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, http.NoBody)
	switch {
	case err != nil:
		r = (&http.Request{Method: http.MethodGet}).WithContext(ctx)
		writeError(w, r, fmt.Errorf("in-process read of %q: %w", urlPath, err))
	case p == nil:
		writeError(w, r, fmt.Errorf("in-process read of %q without a caller", urlPath))
	case !strings.HasPrefix(urlPath, "/v1/") || path.Clean(urlPath) != urlPath || strings.ContainsAny(urlPath, "?#"):
		// A path the mux would redirect (dot segments) or one outside the
		// API: the same not_found a request for it gets.
		writeError(w, r, workshop.Errorf(workshop.CodeNotFound, "There is no GET %s in this API.", urlPath))
	default:
		s.serveRead(w, r)
	}
	if st.cause != nil && ctx.Err() != nil {
		// The read failed because its request's client went away: the
		// request's own line says it was abandoned (499), no error.
		outer.cause = st.cause
	} else if st.cause != nil {
		keyID := ""
		if p != nil {
			keyID = p.KeyID
		}
		// The request this read serves logs its own line; the cause of a
		// 500 here would be lost without this one.
		s.log.LogAttrs(ctx, slog.LevelError, "in-process read", slog.String("request_id", st.id), slog.String("path", urlPath),
			slog.String("operation", st.operation), slog.Int("status", w.status), slog.String("key_id", keyID),
			slog.String("error", st.cause.Error()))
	}
	return w.status, w.body.Bytes()
}

// serveRead runs the routes, a panic answered as a 500 problem as observe
// does for a request over HTTP.
func (s *Server) serveRead(w *bufferedWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			noteCause(r, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			if w.status == 0 {
				writeError(w, r, stateOf(r.Context()).cause)
			}
		}
	}()
	s.routes().ServeHTTP(w, r)
	if w.status == 0 {
		w.status = http.StatusOK
	}
}

// MCPAuth guards the MCP endpoint: every request must carry an MCP token
// (Authorization: Bearer wsm_...), looked up on every request (revocation
// and expiry hold on the next one, on every process). None, an API key, or
// an unknown, expired or revoked token is 401 with a problem body and
// WWW-Authenticate: Bearer, before the MCP handler runs. The token's rate
// limit applies as for API keys. next finds the caller with CallerOf.
func (s *Server) MCPAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		st.operation = "mcp"
		p, err := Authenticate(r.Context(), s.store, r.Header.Get("Authorization"), workshop.KindMCPToken, workshop.MicrosOf(s.now()))
		if err != nil {
			writeError(w, r, err)
			return
		}
		st.principal = p
		if !s.limiter.allow(w, p.KeyID) {
			writeError(w, r, workshop.Errorf(workshop.CodeRateLimited, "This token's rate limit is used up; retry after the Retry-After seconds."))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, p)))
	})
}

type callerKey struct{}

// CallerOf is the caller MCPAuth authenticated for the request ctx belongs
// to; nil when there is none.
func CallerOf(ctx context.Context) *workshop.Principal {
	p, _ := ctx.Value(callerKey{}).(*workshop.Principal)
	return p
}
