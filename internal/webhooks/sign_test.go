package webhooks

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestSignRequestWithSeveralSecrets: webhook-signature carries one v1
// signature per secret, each verifying; X-Service-Signature the newest's.
func TestSignRequestWithSeveralSecrets(t *testing.T) {
	t.Parallel()
	newer, older, other := workshop.NewSigningSecret(), workshop.NewSigningSecret(), workshop.NewSigningSecret()
	body, now := []byte(`{"id":"evt_1","event":"ping","occurredAt":"2026-11-21T10:15:30.123456Z","data":{}}`), time.Now()
	tests := []struct {
		name       string
		secrets    []string
		verifies   []string // by webhook-signature
		refuses    []string
		signatures int
	}{
		{"one secret", []string{newer}, []string{newer}, []string{older, other}, 1},
		{"during a rotation", []string{newer, older}, []string{newer, older}, []string{other}, 2},
	}
	for _, tt := range tests {
		sent := http.Header{}
		if err := SignRequest(sent, tt.secrets, "dlv_1", "ping", 1, now, body); err != nil {
			t.Fatalf("%s: SignRequest: %v", tt.name, err)
		}
		// As a receiver sees them: the lower-case names sent canonical.
		h := http.Header{}
		for k, vs := range sent {
			for _, v := range vs {
				h.Add(k, v)
			}
		}
		if got := len(strings.Fields(h.Get("webhook-signature"))); got != tt.signatures {
			t.Errorf("%s: %d signatures in webhook-signature, want %d", tt.name, got, tt.signatures)
		}
		for _, s := range tt.verifies {
			if err := VerifyStandard(s, body, h, now, time.Minute); err != nil {
				t.Errorf("%s: webhook-signature does not verify with a signing secret: %v", tt.name, err)
			}
		}
		for _, s := range tt.refuses {
			if VerifyStandard(s, body, h, now, time.Minute) == nil {
				t.Errorf("%s: webhook-signature verifies with a secret that did not sign", tt.name)
			}
		}
		if !Verify(newer, body, h.Get("X-Service-Signature")) || (len(tt.secrets) > 1 && Verify(older, body, h.Get("X-Service-Signature"))) {
			t.Errorf("%s: X-Service-Signature %q: want the newest secret's only", tt.name, h.Get("X-Service-Signature"))
		}
	}
	if err := SignRequest(http.Header{}, nil, "dlv_1", "ping", 1, now, body); err == nil {
		t.Errorf("SignRequest without a secret: no error")
	}
}
