package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// fingerprint identifies "the same request": method, path, the body as
// parsed, so that member order and whitespace do not tell two requests
// apart (encoding/json writes a map's members sorted; numbers keep their
// text), and the location it acts on when neither path nor body names it
// (actsOn). body is the gate's parse (nil: none), encoded into the hash,
// never decoded again.
func fingerprint(method, path string, body *jsonBody, location string) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n" + location + "\n"))
	if body != nil {
		enc := json.NewEncoder(h)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(body.value) // a value decoded from JSON encodes; a hash takes every write
	}
	return hex.EncodeToString(h.Sum(nil))
}

// locationFromKey are the operations that act on the key's location when
// the body names none (contract section 2: a repeat acts on the same
// location as the first). The others name their location in the path or
// the body, or by a record they name (a job, a technician, a delivery).
var locationFromKey = map[string]bool{"createJob": true, "applyPlan": true, "createWebhook": true}

// bodyMembers are the members of a JSON object body that the gate reads
// before the operation runs, each a string or "" (absent, or of another
// type: the document's validation refuses that later), read from the
// gate's parse.
type bodyMembers struct {
	locationID  string // where the request acts (Idempotency-Key)
	externalKey string // a job create's (existingJob)
}

func membersOf(body *jsonBody) bodyMembers {
	if body == nil {
		return bodyMembers{}
	}
	m, _ := body.value.(map[string]any)
	loc, _ := m["locationId"].(string)
	key, _ := m["externalKey"].(string)
	return bodyMembers{locationID: loc, externalKey: key}
}

// actsOn is the location a request acts on without naming it: its key's,
// for an operation of locationFromKey whose body names none.
func actsOn(op *operation, p *workshop.Principal, named string) string {
	if locationFromKey[op.id] && named == "" {
		return p.LocationID
	}
	return ""
}

// idempotencyRequest is the Idempotency-Key a request runs under, as its
// operation passes it to the store (store.UnderKey). It rides in the
// request's context as a value, like the principal: nothing in it changes.
type idempotencyRequest struct {
	orgID, key, fingerprint string
	// stored receives the answer the operation stored with its key
	// (storeResponseInTx), which is then sent as it is: encoded once.
	stored *renderedAnswer
}

// renderedAnswer is an answer's status and body as the store kept them.
type renderedAnswer struct {
	status int
	body   []byte
}

type idempotencyRequestKey struct{}

// idempotent runs a POST under its Idempotency-Key. The request is
// authorised first, as if it carried no key (contract section 2): a caller
// that could not make it itself gets that refusal, never the stored
// response. A stored response is replayed (Idempotent-Replayed: true) for
// the same request and refused (idempotency_key_reused) for another.
// Otherwise the request runs: the operations of keyStoredByWrite store the
// key with their response in their own transaction (see
// storeResponseInTx), so the operation and its record commit together; the
// others' successful responses are stored after them. A concurrent request
// with the same key finds the key taken when it tries, fails, and answers
// with the first one's response. Refusals and failures store nothing, so
// the request can be retried with the same key.
//
// Scope and plan are checked before the gate gets here, a location the
// body names just below. The operations of keyStoredByWrite run before the
// key is looked up, so that their own checks (the job, technician or
// webhook they name is visible to the key) refuse first: run again under a
// stored key, such an operation either writes, and then finds the key
// taken and is undone, or writes nothing (it failed, or found nothing to
// change): either way it fails, and unless it was refused, the key is
// looked up and the stored response wins.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, op *operation, key string, body *jsonBody, named string, next http.Handler) {
	ctx := r.Context()
	p := principalOf(ctx)
	if _, err := p.ResolveLocation(named, false); err != nil {
		writeError(w, r, err)
		return
	}
	req := idempotencyRequest{orgID: p.OrgID, key: key, fingerprint: fingerprint(r.Method, r.URL.Path, body, actsOn(op, p, named))}
	if !keyStoredByWrite[op.id] && s.replay(w, r, op, req) {
		return
	}
	req.stored = &renderedAnswer{}
	bw := &bufferedWriter{header: http.Header{}, stored: req.stored}
	next.ServeHTTP(bw, r.WithContext(context.WithValue(ctx, idempotencyRequestKey{}, req)))
	succeeded := bw.status >= 200 && bw.status < 300
	if !succeeded && keyStoredByWrite[op.id] && !refusal(stateOf(ctx).code) && s.replay(w, r, op, req) {
		return // another request stored the key first: its response is the answer
	}
	setRecordHeaders(bw.header, op, r.URL.Path, bw.status, bw.body.Bytes(), bw.record)
	bw.flush(w)
	if succeeded && !keyStoredByWrite[op.id] {
		k := store.IdempotencyKey{OrgID: req.orgID, Key: req.key, Fingerprint: req.fingerprint}
		if err := s.store.SaveIdempotentResponse(context.WithoutCancel(ctx), k, bw.status, bw.body.Bytes()); err != nil {
			s.log.ErrorContext(ctx, "idempotent response not stored", "request_id", requestIDOf(ctx), "error", err)
		}
	}
}

// refusal tells whether an error code refuses the caller (what it may see
// or do), which a stored response must not override.
func refusal(c workshop.Code) bool {
	switch c {
	case workshop.CodeInsufficientScope, workshop.CodePlanUpgradeRequired, workshop.CodeLocationForbidden, workshop.CodeNotFound:
		return true
	}
	return false
}

// writesNothing are the POSTs that change nothing (a preview): an
// Idempotency-Key on them is ignored, and they answer afresh each time.
var writesNothing = map[string]bool{"previewPlan": true}

// keyStoredByWrite are the operations that pass their Idempotency-Key to
// the store, which stores it with the response in the operation's own
// transaction (storeResponseInTx): a success has stored it.
var keyStoredByWrite = map[string]bool{"createJob": true, "createStep": true, "deliverJob": true, "cancelJob": true,
	"clockIn": true, "clockOut": true, "createWebhook": true, "redeliverWebhookDelivery": true, "createIntegration": true}

// replay answers from the key's stored response, if there is one.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, op *operation, req idempotencyRequest) bool {
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
		setRecordHeaders(w.Header(), op, r.URL.Path, rec.StatusCode, rec.Body, nil)
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
			b, ok := appendBody(make([]byte, 0, jobSize), body)
			if !ok {
				var err error
				if b, err = json.Marshal(body); err != nil {
					return 0, nil, err
				}
			}
			b = append(b, '\n')
			*req.stored = renderedAnswer{status: status, body: b}
			return status, b, nil
		}})
}
