package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The developer settings in a real browser: an owner creates an API key,
// sees it once with a copy button beside it, finds it in the list and
// revokes it after confirming; the API refuses it at once. The pages of
// keys, of the secret, of the confirmation, of webhooks, of one webhook
// with its log and of integrations pass axe-core and log no console error.
func TestBrowserDeveloperSettings(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	// The browser logs the 422 of the refused form this test sends.
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") }
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Browser Dev Motors", "pro", 1)
	appUser(t, w, org.ID, "owner-dev@example.com", workshop.RoleOwner, testPassword)
	hook := w.webhookTo(org.ID, "", "http://127.0.0.1:9/browser")
	if _, err := w.st.SendPing(context.Background(), store.Visibility{OrgID: org.ID}, hook.ID, workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "owner-dev@example.com")

	b.do(t, "the developer settings", navigate(srv.URL+"/developer"), waitVisible(`#keys-heading`))
	b.checkAccessible(t, "developer settings")
	b.do(t, "a key without a name or scopes", jsClick(`form[action="/developer/keys"] button[type="submit"]`))
	b.waitFor(t, "the messages beside the fields", `!!document.getElementById("name-error") && !!document.getElementById("scopes-error")`)
	b.checkAccessible(t, "the refused key form")
	b.do(t, "create a key",
		chromedp.SendKeys(`#name`, "Browser key"),
		jsClick(`input[name="scopes"][value="jobs:read"]`),
		jsClick(`input[name="scopes"][value="board:read"]`),
		jsClick(`form[action="/developer/keys"] button[type="submit"]`),
		waitVisible(`#secret`),
	)
	key, err := chromedp.Run(b.ctx, chromedp.Value(`#secret`))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.location(t); got != srv.URL+"/developer" {
		t.Errorf("the address after creating a key is %s, want %s/developer (a reload must not post again or show a missing page)", got, srv.URL)
	}
	if !strings.HasPrefix(key, "wsk_") {
		t.Fatalf("the key shown is %q, want wsk_...", key)
	}
	// The copy button: shown by copy.js (hidden without scripts).
	b.waitFor(t, "the copy button", `!document.querySelector('button[data-copy="secret"]').hidden`)
	b.checkAccessible(t, "the new key")
	if got := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key}).Status; got != http.StatusOK {
		t.Fatalf("the new key at /v1/platform/me: got %d, want 200", got)
	}

	// Shown once: the list has the key's name, never the key.
	b.do(t, "back to the list", jsClick(`.secret a[href="/developer"]`), waitVisible(`#keys-heading`))
	b.waitFor(t, "the key in the list", `document.querySelector("table.keys").textContent.includes("Browser key")`)
	b.waitFor(t, "no key in the list", `!document.body.innerHTML.includes(`+jsString(key)+`)`)
	// htmx keeps the pages it leaves in the browser's session storage: never that one.
	b.waitFor(t, "no copy of the key in the browser's storage", `!JSON.stringify(sessionStorage).includes(`+jsString(key)+`)`)
	b.do(t, "revoke it", jsClick(`a[aria-label="Revoke Browser key"]`), waitVisible(`button.danger`))
	b.checkAccessible(t, "the revoke confirmation")
	b.do(t, "confirm", jsClick(`button.danger`), waitVisible(`#keys-heading`))
	b.waitFor(t, "the key revoked", `document.querySelector("table.keys").textContent.includes("Revoked")`)
	if got := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key}).Status; got != http.StatusUnauthorized {
		t.Errorf("the revoked key at /v1/platform/me: got %d, want 401", got)
	}

	b.do(t, "the webhooks", navigate(srv.URL+"/developer/webhooks"), waitVisible(`form[action="/developer/webhooks"]`))
	b.checkAccessible(t, "webhooks")
	b.do(t, "create a webhook",
		chromedp.SendKeys(`#url`, "http://127.0.0.1:9/made-in-the-browser"),
		jsClick(`input[name="events"][value="job.created"]`),
		jsClick(`form[action="/developer/webhooks"] button[type="submit"]`),
		waitVisible(`#secret`),
	)
	b.waitFor(t, "the signing secret", `document.getElementById("secret").value.startsWith("whsec_")`)
	b.checkAccessible(t, "the new webhook's secret")
	b.do(t, "a webhook", navigate(srv.URL+"/developer/webhooks/"+hook.ID), waitVisible(`#log-heading`))
	b.waitFor(t, "the log", `!!document.querySelector("table.deliveries")`)
	b.checkAccessible(t, "a webhook")
	b.do(t, "the integrations", navigate(srv.URL+"/developer/integrations"), waitVisible(`form[action="/developer/integrations"]`))
	b.checkAccessible(t, "integrations")
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
