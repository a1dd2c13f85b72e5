// Package apidocs serves the rendered API reference at /docs: a page that
// has Redoc, embedded and pinned (redoc/README.md), render the document the
// server publishes at /v1/openapi.json. Every asset is the server's own;
// the page's Content-Security-Policy lets the browser load nothing else.
package apidocs

import (
	"bytes"
	"embed"
	"net/http"
	"sync"
)

// redocVersion names the bundle's URL, so that a new version is a new URL
// and the old one can be cached for good.
const (
	redocVersion = "2.5.4"
	bundlePath   = "/docs/redoc-" + redocVersion + ".standalone.js"
)

//go:embed redoc/redoc.standalone.js redoc/redoc.standalone.js.LICENSE.txt redoc/LICENSE
var redoc embed.FS

// cdnLogo is the one address outside the server the bundle loads from: the
// sidebar's "API docs by Redocly" logo. The served bundle names an empty
// data: image instead, which fails to decode, and Redoc then drops the
// image (its onError); the link stays.
const cdnLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg"

// servedBundle is the embedded bundle with the logo's address replaced.
var servedBundle = sync.OnceValue(func() []byte {
	b, _ := redoc.ReadFile("redoc/redoc.standalone.js") // embedded: cannot fail
	return bytes.Replace(b, []byte(cdnLogo), []byte("data:,"), -1)
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
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workshop API reference</title>
<link rel="icon" href="data:,">
</head>
<body style="margin:0">
<redoc spec-url="/v1/openapi.json" schema-definitions-tag-name="Schemas" sort-enums-alphabetically="true"></redoc>
<script src="` + bundlePath + `"></script>
</body>
</html>
`

// Handler answers GET /docs (the page), the Redoc bundle it loads and the
// bundle's licence texts under /docs/. Mount it for "/docs" and "/docs/".
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
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
	asset(bundlePath, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", servedBundle())
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
