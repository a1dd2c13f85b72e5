// Package apidocs serves the rendered API reference at /docs: a page that
// has Redoc, embedded and pinned (redoc/README.md), render the document the
// server publishes at /v1/openapi.json. Every asset is the server's own;
// the page's Content-Security-Policy lets the browser load nothing else.
package apidocs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"sync"
)

// redocVersion is the embedded Redoc's (redoc/README.md).
const redocVersion = "2.5.4"

//go:embed redoc/redoc.standalone.js redoc/redoc.standalone.js.LICENSE.txt redoc/LICENSE
var redoc embed.FS

// bundlePatch is one change the served bundle makes to the pinned one: old
// occurs exactly once in it (TestBundlePatchesApply), so a new Redoc
// whose code moved fails the tests instead of being served unpatched.
type bundlePatch struct{ old, new string }

var bundlePatches = []bundlePatch{
	// The one address outside the server the bundle loads from: the
	// sidebar's "API docs by Redocly" logo. The served bundle names an
	// empty data: image instead, which fails to decode, and Redoc then
	// drops the image (its onError); the link stays.
	{"https://cdn.redoc.ly/redoc/logo-mini.svg", "data:,"},
	// Every entry of the sidebar's menu is named by its label alone
	// (aria-label), although an operation shows a badge before it ("GET",
	// "EVENT", "SCHEMA"): its visible text is not in its name, which axe
	// reports as label-content-name-mismatch (serious; WCAG 2.5.3 "Label
	// in Name": a voice user says what they see). An entry without
	// entries under it is named by its content instead, badge and label,
	// as they read on the screen; a group keeps its label, which its
	// content (the entries under it) would bury.
	{`role:"menuitem","aria-label":e.sidebarLabel,`, `role:"menuitem","aria-label":e.items&&e.items.length?e.sidebarLabel:void 0,`},
}

// servedBundle is the embedded bundle with bundlePatches applied.
var servedBundle = sync.OnceValue(func() []byte {
	b, _ := redoc.ReadFile("redoc/redoc.standalone.js") // embedded: cannot fail
	for _, p := range bundlePatches {
		b = bytes.Replace(b, []byte(p.old), []byte(p.new), 1)
	}
	return b
})

// bundlePath is the served bundle's URL: the version and a digest of the
// served bytes, so that a new version or patch is a new URL and each can
// be cached for good.
var bundlePath = sync.OnceValue(func() string {
	sum := sha256.Sum256(servedBundle())
	return "/docs/redoc-" + redocVersion + "-" + hex.EncodeToString(sum[:6]) + ".standalone.js"
})

// contentSecurityPolicy allows the page's own assets only. Redoc styles
// with inline style elements (styled-components) and runs its search index
// in a worker made from a blob; its logos and icons are data: images.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// The Schemas section lists every component schema, so that each webhook
// event's payload and the Problem with its error codes show even where no
// operation refers to them.
func page() string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workshop API reference</title>
<link rel="icon" href="data:,">
</head>
<body style="margin:0">
<redoc spec-url="/v1/openapi.json" schema-definitions-tag-name="Schemas" sort-enums-alphabetically="true"></redoc>
<script src="` + bundlePath() + `"></script>
</body>
</html>
`
}

// Handler answers GET /docs (the page), the Redoc bundle it loads and the
// bundle's licence texts under /docs/. Mount it for "/docs" and "/docs/".
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page()))
	})
	mux.HandleFunc("GET /docs/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs", http.StatusMovedPermanently)
	})
	asset := func(urlPath, contentType, cacheControl string, body []byte) {
		mux.HandleFunc("GET "+urlPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", cacheControl)
			_, _ = w.Write(body)
		})
	}
	// Embedded files: reading them cannot fail.
	thirdParty, _ := redoc.ReadFile("redoc/redoc.standalone.js.LICENSE.txt")
	license, _ := redoc.ReadFile("redoc/LICENSE")
	asset(bundlePath(), "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", servedBundle())
	asset("/docs/redoc.standalone.js.LICENSE.txt", "text/plain; charset=utf-8", "public, max-age=86400", thirdParty)
	asset("/docs/LICENSE-redoc.txt", "text/plain; charset=utf-8", "public, max-age=86400", license)
	// Every answer, the redirect and a missing file's 404 included, carries
	// the application's security headers (contract section 7).
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		mux.ServeHTTP(w, r)
	})
}
