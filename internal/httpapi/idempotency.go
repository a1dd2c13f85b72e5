package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Idempotency-Key handling: a claim lasts longer than any request may run,
// so that a request still running is never taken over by its retry.
const (
	idempotencyLease   = 60 * time.Second
	idempotentDeadline = 30 * time.Second
)

// fingerprint identifies "the same request": method, path and body bytes.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs a POST under its Idempotency-Key: the first request runs
// and its successful response is stored (inside the operation's own
// transaction when it writes); a repeat replays it; a repeat while the
// first runs is idempotency_in_progress; the key with another request is
// idempotency_key_reused. Refusals and failures are not stored, so the
// request can be retried with the same key.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, key string, body []byte, next http.Handler) {
	ctx := r.Context()
	p := principalOf(ctx)
	fp := fingerprint(r.Method, r.URL.Path, body)
	rec, claimed, err := s.store.ClaimIdempotencyKey(ctx, p.OrgID, key, fp, idempotencyLease)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !claimed {
		switch {
		case rec.Fingerprint != fp:
			writeError(w, r, &workshop.Error{Code: workshop.CodeIdempotencyKeyReused, Field: "Idempotency-Key",
				Detail: "This Idempotency-Key was used for a different request (method, path or body); use a new key."})
		case rec.StatusCode == 0:
			writeError(w, r, workshop.Errorf(workshop.CodeIdempotencyInProgress, "A request with this Idempotency-Key is still running; retry shortly."))
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(rec.StatusCode)
			_, _ = w.Write(rec.Body)
		}
		return
	}
	claim := &workshop.IdempotencyClaim{OrgID: p.OrgID, Key: key}
	runCtx, cancel := context.WithTimeout(workshop.WithIdempotencyClaim(ctx, claim), idempotentDeadline)
	defer cancel()
	cw := &captureWriter{ResponseWriter: w}
	next.ServeHTTP(cw, r.WithContext(runCtx))

	after := context.WithoutCancel(ctx)
	switch {
	case claim.Completed:
	case cw.status >= 200 && cw.status < 300:
		err = s.store.CompleteIdempotencyKey(after, p.OrgID, key, cw.status, cw.body.Bytes())
	default:
		err = s.store.ReleaseIdempotencyKey(after, p.OrgID, key)
	}
	if err != nil {
		s.log.ErrorContext(ctx, "idempotency key not settled", "request_id", requestIDOf(ctx), "error", err)
	}
}

// captureWriter keeps a copy of the status and body written.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *captureWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *captureWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// storeResponseInTx asks the store to render and keep the response of an
// operation, when it runs under an Idempotency-Key, in the operation's own
// transaction. present turns the operation's result into the status and
// body the handler will answer.
func storeResponseInTx[T any](ctx context.Context, present func(T) (int, any)) {
	c := workshop.IdempotencyClaimFrom(ctx)
	if c == nil {
		return
	}
	c.Render = func(result any) (int, []byte, error) {
		status, body := present(result.(T))
		b, err := json.Marshal(body)
		return status, append(b, '\n'), err
	}
}
