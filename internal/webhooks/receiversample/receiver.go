// Package receiversample is the Go receiver docs/api.md shows (section
// "Verifying deliveries"), kept here so that it is compiled and tested
// against the server's own signing: TestAPIGuideShowsThisReceiver holds the
// guide's copy to this file.
package receiversample

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// docs/api.md:begin

// hook verifies deliveries with the secrets you hold: the current one and,
// for the 24 hours after a rotation, the previous one too.
func hook(secrets ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		if !verified(r.Header, body, secrets, time.Now()) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent) // then handle body (deduplicate on webhook-id)
	}
}

// verified checks webhook-signature: a space-separated "v1,<base64>" per
// secret the server signs with (two during a rotation), each the
// HMAC-SHA256 of "webhook-id.webhook-timestamp.body" keyed with the base64
// part of a whsec_ secret; and a timestamp within five minutes (replays).
func verified(h http.Header, body []byte, secrets []string, now time.Time) bool {
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sent, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || now.Sub(time.Unix(sent, 0)).Abs() > 5*time.Minute {
		return false
	}
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "."))
		mac.Write(body)
		want := mac.Sum(nil)
		for _, sig := range strings.Fields(h.Get("webhook-signature")) {
			got, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sig, "v1,"))
			if err == nil && strings.HasPrefix(sig, "v1,") && hmac.Equal(got, want) {
				return true
			}
		}
	}
	return false
}

// docs/api.md:end
