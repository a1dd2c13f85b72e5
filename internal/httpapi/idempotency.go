package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// fingerprint identifies "the same request": method, path and the body as
// parsed, so that member order and whitespace do not tell two requests
// apart (encoding/json writes a map's members sorted; numbers keep their
// text). The gate has decoded the body already: one that is not JSON
// never gets here, and is hashed as sent all the same.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON is a JSON body re-encoded from its parsed value; a body
// that is empty or not JSON is itself.
func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return body
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return body
	}
	return out.Bytes()
}

// idempotencyRequest is the Idempotency-Key a request runs under, as its
// operation passes it to the store (store.UnderKey). It rides in the
// request's context as a value, like the principal: nothing in it changes.
type idempotencyRequest struct {
	orgID, key, fingerprint string
}

type idempotencyRequestKey struct{}

// idempotent runs a POST under its Idempotency-Key. A stored response is
// replayed (Idempotent-Replayed: true) for the same request and refused
// (idempotency_key_reused) for another. Otherwise the request runs: the
// operations of keyStoredByWrite store the key with their response in
// their own transaction (see storeResponseInTx), so the operation and its
// record commit together; the others' successful responses are stored
// after them. A concurrent request with the same key finds the key taken
// when it tries, fails, and answers with the first one's response.
// Refusals and failures store nothing, so the request can be retried with
// the same key.
//
// The stored response is looked up before the request runs, except for
// the operations of keyInWrite: for them the same lookup after they failed
// finds what it would have found before, and a first request pays none.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, op *operation, key string, body []byte, next http.Handler) {
	ctx := r.Context()
	req := idempotencyRequest{orgID: principalOf(ctx).OrgID, key: key, fingerprint: fingerprint(r.Method, r.URL.Path, body)}
	if !keyInWrite[op.id] && s.replay(w, r, req) {
		return
	}
	bw := &bufferedWriter{header: http.Header{}}
	next.ServeHTTP(bw, r.WithContext(context.WithValue(ctx, idempotencyRequestKey{}, req)))
	succeeded := bw.status >= 200 && bw.status < 300
	if !succeeded && keyStoredByWrite[op.id] && s.replay(w, r, req) {
		return // another request stored the key first: its response is the answer
	}
	bw.flush(w)
	if succeeded && !keyStoredByWrite[op.id] {
		k := store.IdempotencyKey{OrgID: req.orgID, Key: req.key, Fingerprint: req.fingerprint}
		if err := s.store.SaveIdempotentResponse(context.WithoutCancel(ctx), k, bw.status, bw.body.Bytes()); err != nil {
			s.log.ErrorContext(ctx, "idempotent response not stored", "request_id", requestIDOf(ctx), "error", err)
		}
	}
}

// keyStoredByWrite are the operations that pass their Idempotency-Key to
// the store, which stores it with the response in the operation's own
// transaction (storeResponseInTx): a success has stored it.
var keyStoredByWrite = map[string]bool{"createJob": true, "createStep": true, "deliverJob": true, "cancelJob": true,
	"clockIn": true, "clockOut": true, "createWebhook": true, "redeliverWebhookDelivery": true, "createIntegration": true}

// keyInWrite are the operations of keyStoredByWrite that run before the
// key is looked up. Run again under a stored key, such an operation either
// writes, and then finds the key taken and is undone, or writes nothing
// (it failed, or found nothing to change): either way it fails, the key is
// looked up, and the stored response wins.
var keyInWrite = map[string]bool{"createJob": true, "createStep": true, "deliverJob": true, "cancelJob": true}

// replay answers from the key's stored response, if there is one.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, req idempotencyRequest) bool {
	rec, found, err := s.store.IdempotencyRecord(r.Context(), req.orgID, req.key)
	switch {
	case err != nil:
		writeError(w, r, err)
	case !found:
		return false
	case rec.Fingerprint != req.fingerprint:
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

// storeResponseInTx is the store option of an operation of
// keyStoredByWrite: when the request runs under an Idempotency-Key, the
// store keeps the response in the operation's own transaction. present
// turns the operation's result into the status and body the handler will
// answer.
func storeResponseInTx[T any](ctx context.Context, present func(T) (int, any)) store.WriteOption {
	req, ok := ctx.Value(idempotencyRequestKey{}).(idempotencyRequest)
	if !ok {
		return store.UnderKey(nil)
	}
	return store.UnderKey(&store.IdempotencyKey{OrgID: req.orgID, Key: req.key, Fingerprint: req.fingerprint,
		Response: func(result any) (int, []byte, error) {
			status, body := present(result.(T))
			if b, ok := appendBody(make([]byte, 0, jobSize), body); ok {
				return status, append(b, '\n'), nil
			}
			b, err := json.Marshal(body)
			return status, append(b, '\n'), err
		}})
}
