package receiversample

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// During a rotation's 24 hours the server signs with the new secret and
// the old: a receiver holding either, or both, verifies the delivery; one
// holding neither, or a replay, is refused.
func TestReceiverVerifiesDuringRotation(t *testing.T) {
	t.Parallel()
	newSecret, oldSecret, other := workshop.NewSigningSecret(), workshop.NewSigningSecret(), workshop.NewSigningSecret()
	body := []byte(`{"event":"job.created","occurredAt":"2026-11-25T10:00:00.000000Z","data":{}}`)
	now := time.Now()
	for _, tc := range []struct {
		name    string
		signing []string // the server's secrets, newest first
		held    []string // the receiver's
		at      time.Time
		want    int
	}{
		{"no rotation", []string{newSecret}, []string{newSecret}, now, 204},
		{"rotating, the receiver has the old secret only", []string{newSecret, oldSecret}, []string{oldSecret}, now, 204},
		{"rotating, the receiver has the new secret only", []string{newSecret, oldSecret}, []string{newSecret}, now, 204},
		{"rotating, the receiver has both", []string{newSecret, oldSecret}, []string{newSecret, oldSecret}, now, 204},
		{"the old secret after the rotation ended", []string{newSecret}, []string{oldSecret}, now, 401},
		{"another secret", []string{newSecret, oldSecret}, []string{other}, now, 401},
		{"a replay ten minutes later", []string{newSecret}, []string{newSecret}, now.Add(-10 * time.Minute), 401},
	} {
		signed := http.Header{}
		if err := webhooks.SignRequest(signed, tc.signing, "dlv_1", "job.created", 1, tc.at, body); err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/hooks/workshop", bytes.NewReader(body))
		for k, vs := range signed {
			for _, v := range vs {
				req.Header.Add(k, v) // as received: the names canonical
			}
		}
		rec := httptest.NewRecorder()
		hook(tc.held...).ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, rec.Code, tc.want)
		}
	}
}

// docs/api.md shows this package's receiver as it is.
func TestAPIGuideShowsThisReceiver(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("receiver.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "// docs/api.md:begin\n\n")
	code, _, _ = strings.Cut(code, "\n// docs/api.md:end")
	readme, err := os.ReadFile("../../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+code+"```") {
		t.Errorf("docs/api.md does not show the receiver of receiver.go as it is; want this block:\n```go\n%s```", code)
	}
}
