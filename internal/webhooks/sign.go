package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Body is the JSON body of a delivery: the event's id and name, when it
// happened and its stored row (data, as stored, byte for byte).
func Body(eventID, event string, occurredAt workshop.Micros, data json.RawMessage) []byte {
	id, _ := json.Marshal(eventID)
	name, _ := json.Marshal(event)
	b := make([]byte, 0, len(data)+128)
	b = append(b, `{"id":`...)
	b = append(b, id...)
	b = append(b, `,"event":`...)
	b = append(b, name...)
	b = append(b, `,"occurredAt":"`...)
	b = append(b, occurredAt.String()...)
	b = append(b, `","data":`...)
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	b = append(b, data...)
	return append(b, '}')
}

// Signature is the X-Service-Signature value: sha256= and the hex
// HMAC-SHA256 of the body keyed with the UTF-8 bytes of the signing secret.
func Signature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// StandardSignature is the Standard Webhooks webhook-signature value:
// v1, and the base64 HMAC-SHA256 of "id.timestamp.body" keyed with the
// base64-decoded part of the secret after whsec_.
func StandardSignature(secret, msgID string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, workshop.SigningSecretPrefix))
	if err != nil {
		return "", errors.New("the signing secret is not whsec_ and base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignRequest sets the headers of a delivery attempt signed with secrets,
// newest first (a rotated secret signs beside the new one for a while):
// webhook-signature carries a v1 signature per secret, space-separated, as
// Standard Webhooks allows; X-Service-Signature, whose contract form is a
// single sha256= value, carries the newest secret's only.
func SignRequest(h http.Header, secrets []string, deliveryID, event string, attempt int, now time.Time, body []byte) error {
	if len(secrets) == 0 {
		return errors.New("no signing secret")
	}
	ts := now.Unix()
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		var err error
		if sigs[i], err = StandardSignature(secret, deliveryID, ts, body); err != nil {
			return err
		}
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "workshop-webhooks/1")
	h.Set("X-Service-Signature", Signature(secrets[0], body))
	h.Set("X-Service-Event", event)
	h.Set("X-Service-Delivery", deliveryID)
	h.Set("X-Service-Attempt", strconv.Itoa(attempt))
	h["webhook-id"] = []string{deliveryID}
	h["webhook-timestamp"] = []string{strconv.FormatInt(ts, 10)}
	h["webhook-signature"] = []string{strings.Join(sigs, " ")}
	return nil
}

// Verify checks X-Service-Signature of a received body (receivers, tests):
// constant-time comparison of the HMAC.
func Verify(secret string, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// VerifyStandard checks the Standard Webhooks headers of a received body:
// any of the space-separated v1 signatures, and a timestamp within
// tolerance of now (replays are refused).
func VerifyStandard(secret string, body []byte, h http.Header, now time.Time, tolerance time.Duration) error {
	id := h.Get("webhook-id")
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if id == "" || err != nil {
		return errors.New("webhook-id or webhook-timestamp missing")
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return errors.New("webhook-timestamp outside the tolerance")
	}
	want, err := StandardSignature(secret, id, ts, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no webhook-signature verifies")
}
