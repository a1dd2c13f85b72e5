package main

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// devFixture is what the developer settings' actions of the matrix act
// on: a key of the owner, a webhook and one of its deliveries.
type devFixture struct {
	key      operator.KeyOut
	webhook  workshop.Webhook
	delivery workshop.Delivery
}

// devFixtures are made once per matrix world, when an action first needs them.
var devFixtures sync.Map // *matrixWorld -> *devFixture

func devFixtureOf(m *matrixWorld) *devFixture {
	if f, ok := devFixtures.Load(m); ok {
		return f.(*devFixture)
	}
	ctx := context.Background()
	f := &devFixture{key: m.w.key(operator.KeyRequest{UserID: m.users[workshop.RoleOwner].ID, Name: "matrix"})}
	f.webhook = m.w.webhookTo(m.org.ID, "", "http://127.0.0.1:9/matrix")
	d, err := m.w.st.SendPing(ctx, store.Visibility{OrgID: m.org.ID}, f.webhook.ID, workshop.MicrosOf(time.Now()))
	if err != nil {
		m.w.t.Fatalf("ping the matrix webhook: %v", err)
	}
	f.delivery = d
	devFixtures.Store(m, f)
	return f
}

func devPath(suffix func(f *devFixture) string) func(m *matrixWorld) string {
	return func(m *matrixWorld) string { return "/developer" + suffix(devFixtureOf(m)) }
}

func noForm(*matrixWorld) url.Values { return url.Values{} }

// developerActions are the developer settings' actions: keys and MCP
// tokens need developer access; webhooks and integrations the role's
// webhooks and integrations scopes (owners and admins).
var developerActions = []appAction{
	{name: "developer page", method: "GET", path: func(*matrixWorld) string { return "/developer" }, allowed: everyRole, developer: true},
	{name: "create key", method: "POST", path: func(*matrixWorld) string { return "/developer/keys" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"matrix"}, "scopes": {"jobs:read"}} }, allowed: everyRole, developer: true},
	{name: "create MCP token", method: "POST", path: func(*matrixWorld) string { return "/developer/mcp-tokens" },
		form: noForm, allowed: everyRole, developer: true},
	{name: "revoke key page", method: "GET", path: devPath(func(f *devFixture) string { return "/keys/" + f.key.ID + "/revoke" }),
		allowed: everyRole, developer: true},
	{name: "revoke key", method: "POST", path: devPath(func(f *devFixture) string { return "/keys/" + f.key.ID + "/revoke" }),
		form: noForm, allowed: everyRole, developer: true},
	{name: "webhooks page", method: "GET", path: func(*matrixWorld) string { return "/developer/webhooks" }, allowed: adminsOnly, developer: true},
	{name: "create webhook", method: "POST", path: func(*matrixWorld) string { return "/developer/webhooks" },
		form: func(*matrixWorld) url.Values {
			return url.Values{"url": {"http://127.0.0.1:9/created"}, "events": {"job.created"}}
		}, allowed: adminsOnly, developer: true},
	{name: "webhook page", method: "GET", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID }),
		allowed: adminsOnly, developer: true},
	{name: "send test event", method: "POST", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/ping" }),
		form: noForm, allowed: adminsOnly, developer: true},
	{name: "redeliver", method: "POST", path: devPath(func(f *devFixture) string {
		return "/webhooks/" + f.webhook.ID + "/deliveries/" + f.delivery.ID + "/redeliver"
	}), form: noForm, allowed: adminsOnly, developer: true},
	{name: "rotate webhook secret", method: "POST", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/rotate" }),
		form: noForm, allowed: adminsOnly, developer: true},
	{name: "edit webhook", method: "POST", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/edit" }),
		form: func(*matrixWorld) url.Values {
			return url.Values{"url": {"http://127.0.0.1:9/edited"}, "events": {"job.updated"}}
		}, allowed: adminsOnly, developer: true},
	{name: "pause webhook", method: "POST", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/active" }),
		form: func(*matrixWorld) url.Values { return url.Values{"isActive": {"false"}} }, allowed: adminsOnly, developer: true},
	{name: "delete webhook page", method: "GET", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/delete" }),
		allowed: adminsOnly, developer: true},
	{name: "delete webhook", method: "POST", path: devPath(func(f *devFixture) string { return "/webhooks/" + f.webhook.ID + "/delete" }),
		form: noForm, allowed: adminsOnly, developer: true},
	{name: "integrations page", method: "GET", path: func(*matrixWorld) string { return "/developer/integrations" }, allowed: adminsOnly, developer: true},
	{name: "create integration", method: "POST", path: func(*matrixWorld) string { return "/developer/integrations" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"Matrix DMS"}, "systemType": {"dms"}} }, allowed: adminsOnly, developer: true},
}

func init() { appActions = append(appActions, developerActions...) }

var (
	apiKeyRe        = regexp.MustCompile(`value="(wsk_[^"]+)"`)
	mcpTokenRe      = regexp.MustCompile(`value="(wsm_[^"]+)"`)
	signingSecretRe = regexp.MustCompile(`value="(whsec_[^"]+)"`)
)

// shownSecret is the secret a page shows once, by its pattern.
func shownSecret(t *testing.T, p page, re *regexp.Regexp) string {
	t.Helper()
	m := re.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("the page shows no secret %s; body %.600s", re, p.body)
	}
	return html.UnescapeString(m[1])
}

// devWorld is an organisation on the pro plan with an owner who signs in.
type devWorld struct {
	w     *testWorld
	org   *testOrg
	owner workshop.User
	srv   *apitest.Server
	b     *browser
}

func newDevWorld(t *testing.T, databaseURL string) *devWorld {
	t.Helper()
	w := newWorld(t, databaseURL)
	d := &devWorld{w: w, org: w.org("Dev Motors", workshop.PlanPro, 2)}
	d.owner = appUser(t, w, d.org.ID, "dev-owner@example.com", workshop.RoleOwner, testPassword)
	d.srv = startServer(t, databaseURL)
	d.b = newBrowser(t, d.srv.URL)
	d.b.login(d.owner.Email, testPassword, "").want(t, "the owner signs in", http.StatusSeeOther, "/")
	return d
}

// meAt calls GET /v1/platform/me of the server at base with a key and
// returns the status.
func meAt(t *testing.T, base, key string) int {
	t.Helper()
	return apitest.Call(t, base, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key}).Status
}

// credentialOf reads the organisation's key or token with the secret's hash.
func (d *devWorld) credential(t *testing.T, kind workshop.CredentialKind, name string) store.OwnedCredential {
	t.Helper()
	list, err := d.w.st.Credentials(context.Background(), store.CredentialFilter{OrgID: d.org.ID, Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s named %q among %+v", kind, name, list)
	return store.OwnedCredential{}
}

// TestAppDeveloperKeys creates an API key in the application, uses it
// against the API (its last use shows), revokes it in the application and
// sees the API refuse it on the very next request; and an MCP token with
// its client configuration.
func TestAppDeveloperKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		d := newDevWorld(t, db.URL)
		b := d.b
		b.get("/developer").want(t, "developer page", http.StatusOK, "", "<h1>Developer settings</h1>", "No MCP tokens yet", "jobs:read")

		// Invalid input: the form again with a message beside each field, no key.
		p := b.post("/developer/keys", url.Values{"name": {""}, "expires": {"tomorrow"}})
		p.want(t, "a key without name or scopes", http.StatusUnprocessableEntity, "", "Give the key a name", "Choose at least one scope", "Enter the expiry as a date")
		p = b.post("/developer/keys", url.Values{"name": {"past"}, "scopes": {"jobs:read"}, "expires": {"2020-01-01"}})
		p.want(t, "a key expiring in the past", http.StatusUnprocessableEntity, "", "is not in the future")

		expires := time.Now().UTC().AddDate(0, 1, 0).Format(time.DateOnly)
		p = b.post("/developer/keys", url.Values{"name": {"CI pipeline"}, "scopes": {"jobs:read", "jobs:write"},
			"locationId": {d.org.Locations[1].ID}, "expires": {expires}})
		p.want(t, "create a key", http.StatusOK, "", "API key created", "shown this once", "CI pipeline")
		if cc := p.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the page with the key: Cache-Control %q, want no-store", cc)
		}
		key := shownSecret(t, p, apiKeyRe)
		// A second server process on the same database remembers the key
		// once it has seen it.
		second := startServer(t, db.URL)
		for _, base := range []string{d.srv.URL, second.URL} {
			if got := meAt(t, base, key); got != http.StatusOK {
				t.Fatalf("GET %s/v1/platform/me with the new key: got %d, want 200", base, got)
			}
		}
		c := d.credential(t, workshop.KindAPIKey, "CI pipeline")
		if c.LocationID != d.org.Locations[1].ID || len(c.Scopes) != 2 || c.ExpiresAt == nil {
			t.Errorf("stored key %+v: want location 2, 2 scopes, an expiry", c)
		}
		// The list shows it once its use is recorded (in the background).
		ctx := waitCtx(t)
		if !waitUntil(ctx, func() bool { return d.credential(t, workshop.KindAPIKey, "CI pipeline").LastUsedAt != nil }) {
			t.Errorf("the key's last use was never recorded")
		}
		p = b.get("/developer")
		p.want(t, "the list", http.StatusOK, "", "CI pipeline", "jobs:read, jobs:write", d.org.Locations[1].Name, expires[:4])
		p.wantNot(t, "the list", key)

		// Revoke: asked first, then refused by the API at once.
		b.get("/developer/keys/"+c.ID+"/revoke").want(t, "revoke page", http.StatusOK, "", "Revoke the API key CI pipeline?")
		b.post("/developer/keys/"+c.ID+"/revoke", url.Values{}).want(t, "revoke", http.StatusSeeOther, "/developer")
		for _, base := range []string{d.srv.URL, second.URL} {
			if got := meAt(t, base, key); got != http.StatusUnauthorized {
				t.Errorf("GET %s/v1/platform/me with the revoked key: got %d, want 401 at once", base, got)
			}
		}
		b.get("/developer").want(t, "the list after revoking", http.StatusOK, "", "Revoked ")

		// A key for an integration: the jobs it creates are attributed to it.
		integ := d.w.integration(d.org.ID, "Autoline")
		b.post("/developer/keys", url.Values{"name": {"sync"}, "scopes": {"jobs:write"}, "integrationId": {"int_nope"}}).
			want(t, "a key for an unknown integration", http.StatusUnprocessableEntity, "", `id="integrationId-error"`)
		b.post("/developer/keys", url.Values{"name": {"sync"}, "scopes": {"jobs:write"}, "integrationId": {integ.ID}}).
			want(t, "a key for an integration", http.StatusOK, "", "API key created")
		if c := d.credential(t, workshop.KindAPIKey, "sync"); c.IntegrationID != integ.ID {
			t.Errorf("the key's integration is %q, want %s", c.IntegrationID, integ.ID)
		}
		b.get("/developer").want(t, "the list", http.StatusOK, "", "for Autoline")

		// An MCP token, with a configuration ready to paste.
		p = b.post("/developer/mcp-tokens", url.Values{"tokenName": {"Claude"}})
		p.want(t, "create an MCP token", http.StatusOK, "", "MCP token created", "mcpServers", d.srv.URL+"/mcp")
		token := shownSecret(t, p, mcpTokenRe)
		if !strings.Contains(html.UnescapeString(p.body), `"Authorization": "Bearer `+token+`"`) {
			t.Errorf("the snippet lacks the bearer header with the token; body %.1200s", p.body)
		}
		if r := apitest.Call(t, d.srv.URL, apitest.Request{Method: "POST", Path: "/mcp", Key: token,
			Body:   map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"},
			Header: http.Header{"Accept": {"application/json, text/event-stream"}}}); r.Status == http.StatusUnauthorized {
			t.Errorf("the MCP token at /mcp: got 401")
		}
		d.credential(t, workshop.KindMCPToken, "Claude")
	})
}

// TestAppDeveloperAccess: an advisor with developer access gets no scope
// beyond the role, and a user without it no developer settings at all.
func TestAppDeveloperAccess(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		d := newDevWorld(t, db.URL)
		dev, err := d.w.op.AddUser(context.Background(), operator.UserRequest{OrgID: d.org.ID, Email: "dev-advisor@example.com",
			Role: workshop.RoleAdvisor, Developer: true, Password: testPassword})
		if err != nil {
			t.Fatal(err)
		}
		plain := appUser(t, d.w, d.org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)

		b := newBrowser(t, d.srv.URL)
		b.login(dev.Email, testPassword, "").want(t, "the developer advisor signs in", http.StatusSeeOther, "/")
		p := b.get("/developer")
		p.want(t, "developer page", http.StatusOK, "", "jobs:write", "catalog:write")
		p.wantNot(t, "developer page", `value="webhooks:write"`, `value="integrations:read"`, `href="/developer/webhooks"`)
		for _, scope := range []string{"webhooks:write", "technicians:write"} {
			p = b.post("/developer/keys", url.Values{"name": {"too much"}, "scopes": {"jobs:read", scope}})
			p.want(t, "a scope beyond the role", http.StatusUnprocessableEntity, "", "does not allow the scope")
		}
		list, err := d.w.st.Credentials(context.Background(), store.CredentialFilter{OrgID: d.org.ID, UserID: dev.ID, Kind: workshop.KindAPIKey})
		if err != nil || len(list) != 0 {
			t.Errorf("keys of the advisor after refusals: %d (%v), want none", len(list), err)
		}
		p = b.post("/developer/keys", url.Values{"name": {"mine"}, "scopes": {"jobs:read"}})
		p.want(t, "a key within the role", http.StatusOK, "", "API key created")
		// Their own keys only: the owner's key is not theirs to see or revoke.
		b.get("/developer").wantNot(t, "the advisor's list", d.org.Key.ID)
		b.get("/developer/keys/"+d.org.Key.ID+"/revoke").want(t, "another user's key", http.StatusNotFound, "")
		b.get("/developer/webhooks").want(t, "webhooks without the scope", http.StatusForbidden, "")

		nb := newBrowser(t, d.srv.URL)
		nb.login(plain.Email, testPassword, "").want(t, "the advisor signs in", http.StatusSeeOther, "/")
		nb.get("/developer").want(t, "no developer access", http.StatusForbidden, "", "developer access")
	})
}

// TestAppDeveloperWebhooks registers a webhook in the application to a
// local receiver, sees a job made through the API arrive signed, sends a
// test event, rotates the secret, pauses, redelivers and deletes it.
func TestAppDeveloperWebhooks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		d := newDevWorld(t, db.URL)
		b := d.b
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		other := d.w.webhookTo(d.org.ID, "", rcv.URL+"/other") // must never get the ping
		ctx := waitCtx(t)

		p := b.post("/developer/webhooks", url.Values{"url": {"ftp://example.com/x"}, "events": {"job.exploded"}})
		p.want(t, "invalid webhook", http.StatusUnprocessableEntity, "", "Unknown event name", `id="url-error"`)

		p = b.post("/developer/webhooks", url.Values{"url": {rcv.URL + "/app"}, "events": {"job.created", "job.updated"}})
		p.want(t, "create a webhook", http.StatusOK, "", "Webhook created", "shown this once")
		secret := shownSecret(t, p, signingSecretRe)
		list, err := d.w.st.Webhooks(ctx, store.Visibility{OrgID: d.org.ID}, workshop.PageRequest{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var hook workshop.Webhook
		for _, h := range list.Data {
			if h.URL == rcv.URL+"/app" {
				hook = h
			}
		}
		if hook.ID == "" || !hook.IsActive || strings.Join(hook.Events, ",") != "job.created,job.updated" {
			t.Fatalf("stored webhook %+v: want active, job.created and job.updated", hook)
		}
		b.get("/developer/webhooks").want(t, "webhooks page", http.StatusOK, "", rcv.URL+"/app", "2 events")
		b.get("/developer/webhooks/"+hook.ID).wantNot(t, "webhook page", secret)

		api := hookAPI{t: t, url: d.srv.URL}
		job := api.walkIn(d.org.Key.Key, d.org.Locations[0].ID)
		hit, err := rcv.WaitFor(ctx, "/app", "job.created", job)
		if err != nil {
			t.Fatal(err)
		}
		if !webhooks.Verify(secret, hit.Body, hit.Header.Get("X-Service-Signature")) {
			t.Errorf("the job's delivery: X-Service-Signature %q does not verify with the secret shown", hit.Header.Get("X-Service-Signature"))
		}

		// The test event: a signed ping to this webhook only.
		b.post("/developer/webhooks/"+hook.ID+"/ping", url.Values{}).want(t, "send test event", http.StatusSeeOther, "/developer/webhooks/"+hook.ID)
		ping := waitPing(t, ctx, rcv, "/app")
		if !webhooks.Verify(secret, ping.Body, ping.Header.Get("X-Service-Signature")) || ping.Header.Get("X-Service-Event") != "ping" {
			t.Errorf("ping: headers %v; want X-Service-Event ping, signed with the secret", ping.Header)
		}
		var body struct {
			Event string            `json:"event"`
			Data  map[string]string `json:"data"`
		}
		if err := json.Unmarshal(ping.Body, &body); err != nil || body.Event != "ping" || body.Data["webhook_id"] != hook.ID || len(body.Data) != 1 {
			t.Errorf("ping body %s: want event ping, data {webhook_id: %s}", ping.Body, hook.ID)
		}
		// The API's history lists the ping too (its schema allows it).
		pings := 0
		for _, dl := range api.deliveries(d.org.Key.Key, hook.ID) {
			if dl.Event == workshop.EventPing {
				pings++
			}
		}
		if pings != 1 {
			t.Errorf("GET .../deliveries lists %d pings, want 1", pings)
		}
		logPage := "/developer/webhooks/" + hook.ID
		if !waitUntil(ctx, func() bool { return strings.Count(b.get(logPage).body, "Succeeded") == 2 }) {
			t.Errorf("the log never showed both deliveries succeeded; body %.2000s", b.get(logPage).body)
		}
		b.get(logPage).want(t, "the log", http.StatusOK, "", "<td>ping</td>", "<td>job.created</td>", `<td class="num">200</td>`)

		// Rotate: the new secret signs from now on, the old one no more.
		p = b.post("/developer/webhooks/"+hook.ID+"/rotate", url.Values{})
		p.want(t, "rotate", http.StatusOK, "", "Signing secret rotated", "shown this once")
		rotated := shownSecret(t, p, signingSecretRe)
		if rotated == secret {
			t.Fatalf("rotation kept the secret")
		}
		b.post("/developer/webhooks/"+hook.ID+"/ping", url.Values{}).want(t, "ping again", http.StatusSeeOther, "")
		hits, err := rcv.Wait(ctx, "/app", func(hs []*webhookstest.Hit) bool { return countEvent(hs, "ping") >= 2 })
		if err != nil {
			t.Fatal(err)
		}
		last := lastEvent(hits, "ping")
		if sig := last.Header.Get("X-Service-Signature"); !webhooks.Verify(rotated, last.Body, sig) || webhooks.Verify(secret, last.Body, sig) {
			t.Errorf("after rotation the ping must verify with the new secret only")
		}

		// Redeliver a delivery from the log.
		ds, err := d.w.st.RecentDeliveries(ctx, store.Visibility{OrgID: d.org.ID}, hook.ID, 10)
		if err != nil || len(ds) == 0 {
			t.Fatalf("deliveries: %v %v", ds, err)
		}
		b.post("/developer/webhooks/"+hook.ID+"/deliveries/"+ds[len(ds)-1].ID+"/redeliver", url.Values{}).
			want(t, "redeliver", http.StatusSeeOther, "/developer/webhooks/"+hook.ID)
		if _, err := rcv.Wait(ctx, "/app", func(hs []*webhookstest.Hit) bool {
			for _, h := range hs {
				if h.Delivery == ds[len(ds)-1].ID && h.Attempt == 2 {
					return true
				}
			}
			return false
		}); err != nil {
			t.Errorf("the redelivery never arrived: %v", err)
		}

		// Pause: no test event while paused; resume.
		b.post("/developer/webhooks/"+hook.ID+"/active", url.Values{"isActive": {"false"}}).want(t, "pause", http.StatusSeeOther, "")
		b.get("/developer/webhooks/"+hook.ID).want(t, "paused", http.StatusOK, "", "Paused", "Resume deliveries")
		b.post("/developer/webhooks/"+hook.ID+"/ping", url.Values{}).want(t, "ping while paused", http.StatusConflict, "", "paused")
		b.post("/developer/webhooks/"+hook.ID+"/active", url.Values{"isActive": {"true"}}).want(t, "resume", http.StatusSeeOther, "")

		if n := countEvent(rcv.Hits("/other"), "ping"); n != 0 {
			t.Errorf("another webhook of the organisation got %d pings, want none", n)
		}
		ods, err := d.w.st.RecentDeliveries(ctx, store.Visibility{OrgID: d.org.ID}, other.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, dl := range ods {
			if dl.Event == workshop.EventPing {
				t.Errorf("the other webhook has a ping delivery %+v, want none", dl)
			}
		}

		// Edit: invalid input, a stale version, then a change.
		current, err := d.w.st.Webhook(ctx, store.Visibility{OrgID: d.org.ID}, hook.ID)
		if err != nil {
			t.Fatal(err)
		}
		version := strconv.FormatInt(int64(current.UpdatedAt), 10)
		edit := "/developer/webhooks/" + hook.ID + "/edit"
		b.post(edit, url.Values{"url": {"ftp://x"}, "events": {}, "updatedAt": {version}}).
			want(t, "an invalid edit", http.StatusUnprocessableEntity, "", `id="url-error"`, `id="events-error"`)
		b.post(edit, url.Values{"url": {rcv.URL + "/stale"}, "events": {"job.cancelled"}, "updatedAt": {"1"}}).
			want(t, "a stale edit", http.StatusConflict, "", "Someone else changed this", `value="`+rcv.URL+`/app"`, `value="`+version+`"`)
		b.post(edit, url.Values{"url": {rcv.URL + "/edited"}, "events": {"job.delivered"}, "updatedAt": {version}}).
			want(t, "an edit", http.StatusSeeOther, "/developer/webhooks/"+hook.ID)
		if got, err := d.w.st.Webhook(ctx, store.Visibility{OrgID: d.org.ID}, hook.ID); err != nil || got.URL != rcv.URL+"/edited" ||
			strings.Join(got.Events, ",") != "job.delivered" {
			t.Errorf("after the edit: %+v, %v; want the new URL and job.delivered", got, err)
		}

		// Delete: asked first.
		b.get("/developer/webhooks/"+hook.ID+"/delete").want(t, "delete page", http.StatusOK, "", "Delete the webhook to "+rcv.URL+"/edited?")
		b.post("/developer/webhooks/"+hook.ID+"/delete", url.Values{}).want(t, "delete", http.StatusSeeOther, "/developer/webhooks")
		b.get("/developer/webhooks/"+hook.ID).want(t, "deleted", http.StatusNotFound, "")

		// Integrations.
		b.post("/developer/integrations", url.Values{"name": {""}, "systemType": {"fax"}}).
			want(t, "invalid integration", http.StatusUnprocessableEntity, "", "Give a name", "Choose the kind of system")
		b.post("/developer/integrations", url.Values{"name": {"Autoline"}, "systemType": {"dms"}}).
			want(t, "create integration", http.StatusSeeOther, "/developer/integrations")
		b.get("/developer/integrations").want(t, "integrations page", http.StatusOK, "", "Autoline", "dms")
	})
}

func waitPing(t *testing.T, ctx context.Context, rcv *webhookstest.Receiver, path string) *webhookstest.Hit {
	t.Helper()
	hits, err := rcv.Wait(ctx, path, func(hs []*webhookstest.Hit) bool { return countEvent(hs, "ping") > 0 })
	if err != nil {
		t.Fatal(err)
	}
	return lastEvent(hits, "ping")
}

func countEvent(hs []*webhookstest.Hit, event string) int {
	n := 0
	for _, h := range hs {
		if h.Event == event {
			n++
		}
	}
	return n
}

func lastEvent(hs []*webhookstest.Hit, event string) *webhookstest.Hit {
	var last *webhookstest.Hit
	for _, h := range hs {
		if h.Event == event {
			last = h
		}
	}
	return last
}
