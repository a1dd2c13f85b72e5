package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// verifyDir holds the node script and the pinned official libraries.
const verifyDir = "testdata/webhookverify"

// installVerifiers installs the pinned packages once (package-lock.json)
// unless they are there.
var installVerifiers = sync.OnceValue(func() error {
	if _, err := os.Stat(filepath.Join(verifyDir, "node_modules", "svix")); err == nil {
		return nil
	}
	if out, err := exec.Command("npm", "ci", "--prefix", verifyDir, "--no-audit", "--no-fund").CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", verifyDir, err, out)
	}
	return nil
})

// officialVerdicts verifies a received delivery with the official
// standardwebhooks and svix npm packages, once per secret. It skips the
// test when node is missing or the packages cannot be installed (no
// registry): it checks compatibility, not the service's own behaviour.
func officialVerdicts(t *testing.T, hit *webhookstest.Hit, secrets []string) []map[string]string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if err := installVerifiers(); err != nil {
		t.Skip(err)
	}
	headers := map[string]string{}
	for k, v := range hit.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	in, _ := json.Marshal(map[string]any{"body": string(hit.Body), "headers": headers, "secrets": secrets})
	cmd := exec.Command("node", "verify.mjs")
	cmd.Dir, cmd.Stdin = verifyDir, bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v", err)
	}
	var verdicts []map[string]string
	if err := json.Unmarshal(out, &verdicts); err != nil || len(verdicts) != len(secrets) {
		t.Fatalf("node verify.mjs said %s (%v), want a verdict per secret", out, err)
	}
	return verdicts
}

// TestWebhookOfficialLibraries: a delivery made during a rotation verifies
// with the official Standard Webhooks and Svix libraries under the new
// secret and the old one, and not under another.
func TestWebhookOfficialLibraries(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Library Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		api := hookAPI{t: t, url: srv.URL}
		old := api.create(a.Key.Key, map[string]any{"url": rcv.URL + "/lib", "events": []string{"job.created"}})
		r := api.call("PATCH", "/v1/platform/webhooks/"+old.ID, a.Key.Key, map[string]any{"rotateSecret": true})
		var rotated hookOut
		r.Decode(t, &rotated)
		jobID := api.walkIn(a.Key.Key, a.Locations[0].ID)
		hit, err := rcv.WaitFor(waitCtx(t), "/lib", "job.created", jobID)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name, secret string
			want         bool
		}{
			{"the new secret", rotated.SigningSecret, true},
			{"the rotated one", old.SigningSecret, true},
			{"another", workshop.NewSigningSecret(), false},
		}
		secrets := make([]string, len(tests))
		for i, tt := range tests {
			secrets[i] = tt.secret
		}
		verdicts := officialVerdicts(t, hit, secrets)
		for i, tt := range tests {
			for lib, got := range verdicts[i] {
				if (got == "ok") != tt.want {
					t.Errorf("%s with %s: %q, want verified %v", lib, tt.name, got, tt.want)
				}
			}
		}
	})
}
