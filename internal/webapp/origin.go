package webapp

import (
	"net/http"
	"net/url"
	"strings"
)

// crossOrigin tells why a request that may change something (any method
// but GET, HEAD and OPTIONS) comes from a page of another site, or ""
// when it does not (contract section 7): its Origin is anything but the
// server's own origin, "null" included; or, without Origin, its
// Sec-Fetch-Site is cross-site or same-site, or its Referer names another
// origin. Sec-Fetch-Site is the browser's own word on where the request
// comes from, so it is heeded with an Origin too. A request with none of
// the three is not a browser's form post (a script or an old browser
// that sends no Origin: the session cookie, SameSite=Lax, does not ride
// on another site's post) and passes.
//
// The server's own origin is the request's Host, with either scheme, as
// net/http's CrossOriginProtection takes it: behind a proxy that ends TLS
// the server cannot know which scheme the browser used.
func crossOrigin(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return ""
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "cross-site", "same-site":
		return "Sec-Fetch-Site: " + site
	}
	if origin, sent := r.Header["Origin"]; sent {
		if len(origin) != 1 || !sameHost(origin[0], r.Host) {
			return "Origin: " + strings.Join(origin, ", ")
		}
		return ""
	}
	if referer := r.Header.Get("Referer"); referer != "" && !sameHost(referer, r.Host) {
		return "Referer: " + referer
	}
	return ""
}

// sameHost tells whether an origin or a URL (a Referer) is of an http or
// https page served by host; "null", nonsense and other schemes are not.
func sameHost(raw, host string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && strings.EqualFold(u.Host, host)
}

// sameOriginOnly refuses, with refuse, every request crossOrigin names.
func sameOriginOnly(refuse, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if crossOrigin(r) != "" {
			refuse.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
