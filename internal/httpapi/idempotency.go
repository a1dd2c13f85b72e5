package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// fingerprint identifies "the same request": method, path and body bytes.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs a POST under its Idempotency-Key. A stored response is
// replayed (Idempotent-Replayed: true) for the same request and refused
// (idempotency_key_reused) for another. Otherwise the request runs: the
// store takes the key in the operation's own transaction and stores the
// response there, so the operation and its record commit together. A
// concurrent request with the same key finds the key taken when it tries,
// and answers with the first one's response. Refusals and failures store
// nothing, so the request can be retried with the same key.
//
// The stored response is looked up before the request runs, except for
// the operations of keyInWrite: for them the same lookup after they ran
// finds what it would have found before, and a first request pays none.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, op *operation, key string, body []byte, next http.Handler) {
	ctx := r.Context()
	p := principalOf(ctx)
	claim := &workshop.IdempotencyClaim{OrgID: p.OrgID, Key: key, Fingerprint: fingerprint(r.Method, r.URL.Path, body)}
	lookAfter := keyInWrite[op.id]
	if !lookAfter && s.replay(w, r, claim) {
		return
	}
	bw := &bufferedWriter{header: http.Header{}}
	next.ServeHTTP(bw, r.WithContext(workshop.WithIdempotencyClaim(ctx, claim)))
	if (claim.Raced || lookAfter && !claim.Completed) && s.replay(w, r, claim) {
		return
	}
	bw.flush(w)
	if !claim.Completed && bw.status >= 200 && bw.status < 300 {
		if err := s.store.SaveIdempotentResponse(context.WithoutCancel(ctx), claim, bw.status, bw.body.Bytes()); err != nil {
			s.log.ErrorContext(ctx, "idempotent response not stored", "request_id", requestIDOf(ctx), "error", err)
		}
	}
}

// keyInWrite are the operations whose every write is the one that stores
// their Idempotency-Key (storeResponseInTx), so that they can run before
// the key is looked up. Run again under a stored key, such an operation
// either writes, and then finds the key taken and is undone (claim.Raced),
// or writes nothing (it failed, or found nothing to change): either way
// the key is looked up before anything is answered, and its response wins.
var keyInWrite = map[string]bool{"createJob": true, "createStep": true, "deliverJob": true, "cancelJob": true}

// replay answers from the key's stored response, if there is one.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, claim *workshop.IdempotencyClaim) bool {
	rec, found, err := s.store.IdempotencyRecord(r.Context(), claim.OrgID, claim.Key)
	switch {
	case err != nil:
		writeError(w, r, err)
	case !found:
		return false
	case rec.Fingerprint != claim.Fingerprint:
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
	return true
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
		if b, ok := appendBody(make([]byte, 0, jobSize), body); ok {
			return status, append(b, '\n'), nil
		}
		b, err := json.Marshal(body)
		return status, append(b, '\n'), err
	}
}
