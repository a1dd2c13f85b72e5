package webapp

import "net/http"

// contentSecurityPolicy lets pages run only the embedded scripts (no
// inline script or event handler: contract section 7) and load nothing
// from elsewhere; inline styles stay allowed (htmx adds its indicator
// style). No other site may frame a page, nor a form post elsewhere.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

// withSecurityHeaders gives every answer of the application, pages,
// redirects, errors, assets and event streams alike, the headers of
// contract section 7 before anything else writes it.
func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
