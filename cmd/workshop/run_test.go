package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// envOf is a getenv over a fixed map: tests never read the real
// environment (and never fall back to ./workshop.db).
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

type runResult struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, envOf(env), &stdout, &stderr)
	return runResult{code, stdout.String(), stderr.String()}
}

// object is the one JSON object a command prints, failing t otherwise.
func (r runResult) object(t *testing.T) map[string]any {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing on stderr", r.code, r.stderr)
	}
	if strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
		t.Errorf("stdout has several lines, want one JSON object: %s", r.stdout)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v: %q", err, r.stdout)
	}
	return m
}

func TestRunUnknownCommand(t *testing.T) {
	t.Parallel()
	// admin alone, like git and kubectl without a subcommand: the usage on
	// stderr, exit 2.
	for _, args := range [][]string{{"frobnicate"}, {}, {"admin"}, {"admin", "org", "frobnicate"}} {
		r := runCmd(t, nil, args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "usage: workshop") {
			t.Errorf("run %q: got exit %d, stdout %q, stderr %q; want 2, nothing, the usage", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, nil, "frobnicate"); !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("stderr %q does not name the unknown command", r.stderr)
	}
	if r := runCmd(t, nil, "admin"); !strings.Contains(r.stderr, "workshop admin org list [flags]") {
		t.Errorf("admin alone: stderr %q does not list the admin commands", r.stderr)
	}
	if r := runCmd(t, nil, "serve", "--nope"); r.code != 2 || !strings.Contains(r.stderr, "-nope") {
		t.Errorf("serve --nope: got exit %d, stderr %q; want 2 and the flag named", r.code, r.stderr)
	}
}

// -h prints the command's flags, with their defaults, to stdout.
func TestRunHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		// Every setting of contract section 1 names its environment variable.
		{[]string{"serve", "-h"}, []string{"usage: workshop serve", "-webhook-retry-delays", "-addr", "(env WORKSHOP_DATABASE_URL)",
			"(env WORKSHOP_ADDR)", "(env WORKSHOP_WEBHOOK_RETRY_DELAYS)", "(env WORKSHOP_WEBHOOK_TIMEOUT)",
			"(env WORKSHOP_WEBHOOK_ALLOW_INSECURE=1)", "(env WORKSHOP_ARRIVAL_SKEW)", "(env WORKSHOP_RATE_LIMIT)"}},
		{[]string{"bench", "--help"}, []string{"usage: workshop bench", "-scenario", "webhook_slow_receiver", "(env WORKSHOP_BENCH_DATABASE_URL)"}},
		{[]string{"migrate", "-h"}, []string{"usage: workshop migrate", "-database", "(env WORKSHOP_DATABASE_URL)"}},
		{[]string{"mcp", "-h"}, []string{"usage: workshop mcp", "(env WORKSHOP_DATABASE_URL)", "(env WORKSHOP_MCP_TOKEN)"}},
		{[]string{"admin", "help"}, []string{"usage: workshop admin", "workshop admin key create [flags]", "workshop admin org list [flags]"}},
		{[]string{"admin", "key", "create", "-h"}, []string{"usage: workshop admin key create", "-expires", "(env WORKSHOP_DATABASE_URL)"}},
		{[]string{"admin", "key", "list", "-h"}, []string{"usage: workshop admin key list", "-org", "-user"}},
	} {
		r := runCmd(t, nil, tc.args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("run %q: got exit %d, stderr %q; want 0, nothing", tc.args, r.code, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("run %q: stdout %q does not contain %q", tc.args, r.stdout, w)
			}
		}
	}
}

// version and --version print the build's module version and commit
// (a test binary has neither: their placeholders).
func TestRunVersion(t *testing.T) {
	t.Parallel()
	want := fmt.Sprintf("workshop %s commit %s %s\n", build.Version, build.Commit, runtime.Version())
	if build.Version != "(devel)" || build.Commit != "unknown" {
		t.Errorf("a test binary's build: got %+v, want version (devel) and commit unknown", build)
	}
	for _, arg := range []string{"version", "--version"} {
		r := runCmd(t, nil, arg)
		if r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("run %q: got exit %d, stdout %q, stderr %q; want 0, %q", arg, r.code, r.stdout, r.stderr, want)
		}
	}
}

func TestRunMigrate(t *testing.T) {
	t.Parallel()
	storetest.EachEmpty(t, func(t *testing.T, db storetest.Database) {
		first := runCmd(t, nil, "migrate", "--database", db.URL).object(t)
		v, ok := first["schemaVersion"].(float64)
		if !ok || v < 1 {
			t.Errorf("schemaVersion: got %v, want a version >= 1 in %v", first["schemaVersion"], first)
		}
		if first["database"] != db.Name {
			t.Errorf("database: got %v, want %s", first["database"], db.Name)
		}
		again := runCmd(t, nil, "migrate", "--database", db.URL).object(t)
		if again["schemaVersion"] != first["schemaVersion"] {
			t.Errorf("migrating twice: got version %v, then %v", first["schemaVersion"], again["schemaVersion"])
		}
	})
	t.Run("bad flags", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"migrate", "--database", "mysql://nowhere"},
			{"migrate", "--nope"},
			{"migrate", "--database", storetest.SQLiteURL(t), "extra"},
		} {
			if r := runCmd(t, nil, args...); r.code == 0 || r.stdout != "" || r.stderr == "" {
				t.Errorf("run %q: got exit %d, stdout %q, stderr %q; want non-zero, nothing, a message", args, r.code, r.stdout, r.stderr)
			}
		}
	})
}

// TestAdminCommands runs every operator command in turn and checks that it
// prints one JSON object with the contract's member names (section 1).
func TestAdminCommands(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		out := map[string]map[string]any{} // step name -> its output
		id := func(step string) string { s, _ := out[step]["id"].(string); return s }
		expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		steps := []struct {
			name  string
			args  func() []string
			want  []string // member names the contract lists
			check func(t *testing.T, m map[string]any)
		}{
			{"org create", func() []string { return []string{"org", "create", "--name", "Alpha Motors"} },
				[]string{"id", "name", "planTier"}, func(t *testing.T, m map[string]any) {
					wantValue(t, m, "planTier", "pro")
					wantPrefix(t, m, "id", "org_")
				}},
			{"org set-plan", func() []string { return []string{"org", "set-plan", id("org create"), "--plan", "starter"} },
				[]string{"id", "name", "planTier"}, func(t *testing.T, m map[string]any) { wantValue(t, m, "planTier", "starter") }},
			{"location create", func() []string {
				return []string{"location", "create", "--org", id("org create"), "--name", "Berlin", "--timezone", "Europe/Berlin"}
			}, []string{"id", "name", "timezone", "currencyCode", "orgId"}, func(t *testing.T, m map[string]any) {
				wantValue(t, m, "currencyCode", "EUR")
				wantValue(t, m, "timezone", "Europe/Berlin")
				wantValue(t, m, "orgId", id("org create"))
				wantPrefix(t, m, "id", "loc_")
			}},
			{"user create", func() []string {
				return []string{"user", "create", "--org", id("org create"), "--email", "owner@example.com", "--role", "owner"}
			}, []string{"id", "orgId", "email", "role", "developerAccess"}, func(t *testing.T, m map[string]any) {
				wantValue(t, m, "role", "owner")
				wantValue(t, m, "developerAccess", false)
				wantPrefix(t, m, "id", "usr_")
			}},
			{"user create --developer", func() []string {
				return []string{"user", "create", "--org", id("org create"), "--email", "dev@example.com", "--role", "advisor", "--developer"}
			}, []string{"id", "orgId", "email", "role", "developerAccess"}, func(t *testing.T, m map[string]any) {
				wantValue(t, m, "developerAccess", true)
			}},
			{"key create", func() []string { return []string{"key", "create", "--user", id("user create")} },
				[]string{"id", "key", "orgId", "locationId", "scopes", "expiresAt"}, func(t *testing.T, m map[string]any) {
					wantPrefix(t, m, "id", "key_")
					wantPrefix(t, m, "key", "wsk_")
					wantValue(t, m, "locationId", nil)
					wantValue(t, m, "expiresAt", nil)
					if s, _ := m["scopes"].([]any); len(s) != 16 {
						t.Errorf("scopes of an owner's key without --scopes: got %v, want all 16", m["scopes"])
					}
				}},
			{"key create pinned", func() []string {
				return []string{"key", "create", "--user", id("user create --developer"), "--location", id("location create"),
					"--scopes", "jobs:read,board:read", "--expires", expires}
			}, []string{"id", "key", "orgId", "locationId", "scopes", "expiresAt"}, func(t *testing.T, m map[string]any) {
				wantValue(t, m, "locationId", id("location create"))
				if s, _ := m["scopes"].([]any); !slices.Equal(s, []any{"jobs:read", "board:read"}) {
					t.Errorf("scopes: got %v, want [jobs:read board:read]", m["scopes"])
				}
				if e, _ := m["expiresAt"].(string); !auditTimestampRe.MatchString(e) {
					t.Errorf("expiresAt: got %v, want a timestamp", m["expiresAt"])
				}
			}},
			{"key revoke", func() []string { return []string{"key", "revoke", id("key create")} },
				[]string{"id", "revokedAt"}, func(t *testing.T, m map[string]any) {
					wantValue(t, m, "id", id("key create"))
					if e, _ := m["revokedAt"].(string); !auditTimestampRe.MatchString(e) {
						t.Errorf("revokedAt: got %v, want a timestamp", m["revokedAt"])
					}
				}},
			{"mcp-token create", func() []string { return []string{"mcp-token", "create", "--user", id("user create")} },
				[]string{"id", "token"}, func(t *testing.T, m map[string]any) { wantPrefix(t, m, "token", "wsm_") }},
			{"technician create", func() []string {
				return []string{"technician", "create", "--location", id("location create"), "--name", "Ana", "--skills", "ev,diagnostics", "--wip-limit", "2"}
			}, []string{"id", "locationId", "name", "skills", "wipLimit", "status", "clockedIn", "updatedAt"}, func(t *testing.T, m map[string]any) {
				wantPrefix(t, m, "id", "tec_")
				wantValue(t, m, "wipLimit", 2.0)
				wantValue(t, m, "status", "available")
				wantValue(t, m, "clockedIn", false)
			}},
			{"bay create", func() []string {
				return []string{"bay", "create", "--location", id("location create"), "--name", "Bay 1", "--equipment", "lift", "--services", "OIL,TYRES"}
			}, []string{"id", "locationId", "name", "equipment", "services", "status", "occupied", "updatedAt"}, func(t *testing.T, m map[string]any) {
				wantPrefix(t, m, "id", "bay_")
				wantValue(t, m, "status", "available")
				wantValue(t, m, "occupied", false)
			}},
			{"cancel-tags set", func() []string {
				return []string{"cancel-tags", "set", "--location", id("location create"), "customer_declined", "parts_unavailable=Parts missing"}
			}, []string{"data"}, func(t *testing.T, m map[string]any) {
				data, _ := m["data"].([]any)
				want := []any{
					map[string]any{"tag": "customer_declined", "label": "Customer declined"},
					map[string]any{"tag": "parts_unavailable", "label": "Parts missing"},
				}
				if !jsonEqual(data, want) {
					t.Errorf("data: got %v, want %v", data, want)
				}
			}},
			{"day-close start", func() []string { return []string{"day-close", "start", "--location", id("location create")} },
				[]string{"locationId", "state"}, func(t *testing.T, m map[string]any) { wantValue(t, m, "state", "closing") }},
			{"day-close finish", func() []string { return []string{"day-close", "finish", "--location", id("location create")} },
				[]string{"locationId", "state", "closedDate"}, func(t *testing.T, m map[string]any) {
					wantValue(t, m, "state", "open")
					if d, _ := m["closedDate"].(string); !regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(d) {
						t.Errorf("closedDate: got %v, want YYYY-MM-DD", m["closedDate"])
					}
				}},
			{"technician delete", func() []string { return []string{"technician", "delete", id("technician create")} },
				[]string{"id", "deleted"}, func(t *testing.T, m map[string]any) { wantValue(t, m, "deleted", true) }},
			{"bay delete", func() []string { return []string{"bay", "delete", id("bay create")} },
				[]string{"id", "deleted"}, func(t *testing.T, m map[string]any) { wantValue(t, m, "deleted", true) }},
			{"demo", func() []string { return []string{"demo"} },
				[]string{"orgId", "locationIds", "orgKey", "locationKey", "mcpToken"}, func(t *testing.T, m map[string]any) {
					wantPrefix(t, m, "orgId", "org_")
					wantPrefix(t, m, "orgKey", "wsk_")
					wantPrefix(t, m, "locationKey", "wsk_")
					wantPrefix(t, m, "mcpToken", "wsm_")
				}},
		}
		for _, step := range steps {
			args := append([]string{"admin"}, step.args()...)
			args = append(args, "--database", db.URL)
			r := runCmd(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("%s: exit %d, stderr %q", step.name, r.code, r.stderr)
			}
			m := r.object(t)
			out[step.name] = m
			for _, member := range step.want {
				if _, ok := m[member]; !ok {
					t.Errorf("%s: no member %q in %v", step.name, member, sortedKeys(m))
				}
			}
			var extra []string
			for _, k := range sortedKeys(m) {
				if !slices.Contains(step.want, k) {
					extra = append(extra, k)
				}
			}
			if len(extra) > 0 {
				t.Logf("%s: members beyond the contract's: %v", step.name, extra)
			}
			step.check(t, m)
		}
	})
}

func wantValue(t *testing.T, m map[string]any, member string, want any) {
	t.Helper()
	if got := m[member]; got != want {
		t.Errorf("%s: got %#v, want %#v", member, got, want)
	}
}

func wantPrefix(t *testing.T, m map[string]any, member, prefix string) {
	t.Helper()
	if s, _ := m[member].(string); !strings.HasPrefix(s, prefix) || len(s) <= len(prefix) {
		t.Errorf("%s: got %#v, want %s...", member, m[member], prefix)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestAdminFailures: a refused operator command exits non-zero with a
// message on stderr and prints nothing on stdout.
func TestAdminFailures(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", "pro", 1)
		advisor, err := w.op.CreateUser(context.Background(), a.ID, "advisor@example.com", "advisor", true)
		if err != nil {
			t.Fatal(err)
		}
		tech, err := w.op.CreateUser(context.Background(), a.ID, "tech@example.com", "technician", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name    string
			args    []string
			mention string // what stderr must mention
		}{
			{"bad timezone", []string{"location", "create", "--org", a.ID, "--name", "Mars", "--timezone", "Mars/Olympus_Mons"}, "timezone"},
			{"scope beyond the role", []string{"key", "create", "--user", advisor.ID, "--scopes", "webhooks:write"}, "webhooks:write"},
			{"unknown scope", []string{"key", "create", "--user", a.Owner.ID, "--scopes", "jobs:delete"}, "jobs:delete"},
			{"no developer access", []string{"key", "create", "--user", tech.ID}, "developer"},
			{"expiry in the past", []string{"key", "create", "--user", a.Owner.ID, "--expires", "2001-01-01T00:00:00Z"}, "expir"},
			{"expiry not RFC 3339", []string{"key", "create", "--user", a.Owner.ID, "--expires", "tomorrow"}, "expires"},
			{"location of another org", []string{"key", "create", "--user", a.Owner.ID, "--location", "loc_nope"}, "loc_nope"},
			{"unknown org", []string{"location", "create", "--org", "org_nope", "--name", "X", "--timezone", "Europe/Berlin"}, ""},
			{"unknown plan", []string{"org", "create", "--name", "X", "--plan", "gold"}, "gold"},
			{"unknown role", []string{"user", "create", "--org", a.ID, "--email", "x@example.com", "--role", "king"}, "king"},
			{"bad email", []string{"user", "create", "--org", a.ID, "--email", "not-an-email", "--role", "owner"}, "email"},
			{"bad currency", []string{"location", "create", "--org", a.ID, "--name", "X", "--timezone", "Europe/Berlin", "--currency", "euro"}, "currency"},
			{"unknown key", []string{"key", "revoke", "key_nope"}, ""},
			{"missing positional", []string{"key", "revoke"}, "usage"},
			{"unknown flag", []string{"org", "create", "--name", "X", "--colour", "red"}, "colour"},
			{"unknown command", []string{"frobnicate"}, "unknown admin command"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := runCmd(t, nil, append(append([]string{"admin"}, tc.args...), "--database", db.URL)...)
				if r.code == 0 || r.stdout != "" || strings.TrimSpace(r.stderr) == "" {
					t.Fatalf("got exit %d, stdout %q, stderr %q; want non-zero, nothing, a message", r.code, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stderr, tc.mention) {
					t.Errorf("stderr %q does not mention %q", r.stderr, tc.mention)
				}
			})
		}
	})
}

// TestAdminFlagsAndEnvironment: flags may follow the positional arguments,
// and WORKSHOP_DATABASE_URL stands in for --database (the flag wins).
func TestAdminFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", "pro", 1)
		k1 := w.key(operator.KeyRequest{UserID: a.Owner.ID})
		k2 := w.key(operator.KeyRequest{UserID: a.Owner.ID})

		after := runCmd(t, nil, "admin", "key", "revoke", k1.ID, "--database", db.URL).object(t)
		wantValue(t, after, "id", k1.ID)
		before := runCmd(t, nil, "admin", "key", "revoke", "--database", db.URL, k2.ID).object(t)
		wantValue(t, before, "id", k2.ID)
		again := runCmd(t, nil, "admin", "key", "revoke", k1.ID, "--database", db.URL).object(t)
		wantValue(t, again, "revokedAt", after["revokedAt"]) // revoking twice keeps the first time

		env := map[string]string{"WORKSHOP_DATABASE_URL": db.URL}
		created := runCmd(t, env, "admin", "org", "create", "--name", "From the environment").object(t)
		orgID, _ := created["id"].(string)
		if _, err := w.st.Org(context.Background(), orgID); err != nil {
			t.Errorf("the org made with WORKSHOP_DATABASE_URL is not in that database: %v", err)
		}

		other := "sqlite://" + filepath.Join(t.TempDir(), "other.db")
		env = map[string]string{"WORKSHOP_DATABASE_URL": other}
		created = runCmd(t, env, "admin", "org", "create", "--name", "From the flag", "--database", db.URL).object(t)
		orgID, _ = created["id"].(string)
		if _, err := w.st.Org(context.Background(), orgID); err != nil {
			t.Errorf("--database did not win over WORKSHOP_DATABASE_URL: %v", err)
		}
	})
}

// TestRunServe runs `workshop serve --demo` through run, as main does: it
// seeds the demo, prints a working key, serves, and exits 0 when its
// context ends.
func TestRunServe(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr apitest.LogBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--rate-limit", "0"},
			envOf(map[string]string{"WORKSHOP_DATABASE_URL": db}), &stdout, &stderr)
	}()
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); {
		lines, _ := stderr.Lines()
		for _, l := range lines {
			if l["msg"] == "serving" {
				addr, _ = l["addr"].(string)
			}
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before serving: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if addr == "" {
		t.Fatalf("no serving line in the log: %s", stderr.String())
	}
	key := regexp.MustCompile(`org key\s+(wsk_\S+)`).FindStringSubmatch(stdout.String())
	if key == nil {
		t.Fatalf("serve --demo printed no org key: %s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "curl") {
		t.Errorf("serve --demo printed no curl line: %s", stdout.String())
	}
	r := apitest.Call(t, "http://"+addr, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key[1]})
	if r.Status != 200 {
		t.Errorf("the demo org key: got %d, want 200; body %s", r.Status, r.Body)
	}
	if !strings.Contains(stdout.String(), "\napp: http://"+addr+"/\n") {
		t.Errorf("serve --demo printed no app line for %s: %s", addr, stdout.String())
	}
	users := regexp.MustCompile(`(?m)^user (\S+@\S+) (\S{10,}) (owner|advisor|technician)$`).FindAllStringSubmatch(stdout.String(), -1)
	roles := map[string]bool{}
	for _, u := range users {
		roles[u[3]] = true
		newBrowser(t, "http://"+addr).login(u[1], u[2], "").want(t, "sign in as the printed "+u[3], http.StatusSeeOther, "/")
	}
	if len(roles) != 3 {
		t.Errorf("serve --demo printed users of roles %v, want an owner, an advisor and a technician: %s", roles, stdout.String())
	}
	// A second demo start (admin demo, as a restarted serve --demo would)
	// revokes the keys the first printed.
	runCmd(t, map[string]string{"WORKSHOP_DATABASE_URL": db}, "admin", "demo").object(t)
	if r := apitest.Call(t, "http://"+addr, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key[1]}); r.Status != 401 || !strings.Contains(string(r.Body), "key_revoked") {
		t.Errorf("the first start's org key after a second start: got %d %s, want 401 key_revoked", r.Status, r.Body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after its context ended, want 0; stderr %s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not return after its context ended")
	}
	for _, args := range [][]string{
		{"serve", "--rate-limit", "lots"},
		{"serve", "--webhook-timeout", "0s"},
		{"serve", "--webhook-retry-delays", "soon"},
		{"serve", "extra"},
	} {
		if r := runCmd(t, map[string]string{"WORKSHOP_DATABASE_URL": db}, args...); r.code == 0 || r.stderr == "" {
			t.Errorf("run %q: got exit %d, stderr %q; want a refusal", args, r.code, r.stderr)
		}
	}
}

// TestSetGCPercent: the collector's default applies only when the operator
// has not set GOGC. Not parallel: the percentage is the process's.
func TestSetGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	for _, tc := range []struct {
		gogc string
		want int
	}{{"", gcPercent}, {"50", 100}, {"off", 100}} {
		debug.SetGCPercent(100)
		setGCPercent(func(k string) string {
			if k == "GOGC" {
				return tc.gogc
			}
			return ""
		})
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q: GC percent %d, want %d", tc.gogc, got, tc.want)
		}
	}
}
