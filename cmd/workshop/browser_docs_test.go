package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// The API reference at /docs, as a reader's browser shows it: Redoc
// renders the served document with no console error (the page's
// Content-Security-Policy turns a load from elsewhere into one) and loads
// nothing but the server's own assets; every schema of the document (each
// webhook event's payload among them) has its section, and the Errors
// section names every error code of the Problem schema; axe-core finds
// nothing serious.
func TestBrowserAPIReference(t *testing.T) {
	t.Parallel()
	db := storetest.SQLiteURL(t)
	srv := startServer(t, db)
	page := apitest.Call(t, srv.URL, apitest.Request{Method: http.MethodGet, Path: "/docs"})
	if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: got %d %q, want 200 text/html", page.Status, page.Header.Get("Content-Type"))
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
		Webhooks map[string]struct {
			Post struct {
				OperationID string `json:"operationId"`
			} `json:"post"`
		} `json:"x-webhooks"`
	}
	apitest.Call(t, srv.URL, apitest.Request{Method: http.MethodGet, Path: "/v1/openapi.json"}).Decode(t, &doc)

	b := newChrome(t)
	b.do(t, "open /docs", navigate(srv.URL+"/docs"), waitVisible(`[id="tag/Errors"]`))
	ids, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[id]")].map(e => e.id)`))
	if err != nil {
		t.Fatal(err)
	}
	for name := range doc.Components.Schemas {
		if !slices.Contains(ids, "schema/"+name) {
			t.Errorf("schema %s: no section schema/%s in the reference", name, name)
		}
	}
	if len(doc.Webhooks) == 0 {
		t.Error("the served document has no x-webhooks")
	}
	for event, hook := range doc.Webhooks {
		if !slices.Contains(ids, "operation/"+hook.Post.OperationID) {
			t.Errorf("webhook %s: no section operation/%s in the reference", event, hook.Post.OperationID)
		}
	}
	errorsText := b.text(t, `[id="tag/Errors"]`)
	codes := doc.Components.Schemas["Problem"].Properties["code"].Enum
	if len(codes) == 0 {
		t.Fatal("the served document's Problem has no code enum")
	}
	for _, code := range codes {
		if !strings.Contains(errorsText, code) {
			t.Errorf("the Errors section does not name the code %s", code)
		}
	}
	loaded, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range loaded {
		if !strings.HasPrefix(u, srv.URL+"/") {
			t.Errorf("the reference loaded %s, want only %s/...", u, srv.URL)
		}
	}
	if !slices.Contains(loaded, srv.URL+"/v1/openapi.json") {
		t.Errorf("loaded %v, want the served document among them", loaded)
	}
	// axe-core finds nothing serious. The sidebar's entries are named as
	// they read (apidocs.bundlePatches): axe's experimental
	// label-content-name-mismatch runs on the whole page, on a laptop and on
	// a phone; the WCAG A and AA rules on the sidebar, where Redoc's own
	// markup is (the middle is the document's text; all of axe on Redoc's
	// whole page takes a minute of a core).
	const nameMatchesLabel = `{runOnly: {type: "rule", values: ["label-content-name-mismatch"]}}`
	for _, screen := range []struct {
		name          string
		width, height int64
	}{{"laptop", 1366, 768}, {"phone", 390, 844}} {
		b.do(t, "open /docs on a "+screen.name, chromedp.EmulateViewport(screen.width, screen.height),
			navigate(srv.URL+"/docs"), waitVisible(`[id="tag/Errors"]`))
		b.checkAxe(t, "/docs on a "+screen.name, "document", nameMatchesLabel)
		if screen.name == "laptop" {
			b.checkAxe(t, "/docs, its sidebar", `{include: [".menu-content"]}`,
				`{runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, rules: {"label-content-name-mismatch": {enabled: true}}}`)
		}
	}
}
