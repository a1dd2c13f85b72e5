package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// ParseOrigin checks an origin the operator allows (https://assistant.example,
// http://localhost:6274) and returns it as browsers send it: scheme and host
// in lower case, without a default port.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin such as https://assistant.example or http://localhost:6274", s)
	}
	return originOf(u), nil
}

func originOf(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	host = strings.TrimSuffix(host, map[string]string{"http": ":80", "https": ":443"}[scheme])
	return scheme + "://" + host
}

// OriginGuard refuses, 403 origin_forbidden, a request whose Origin header
// names neither the server's own origin nor one of allowed (as ParseOrigin
// returns them): a web page of another site, maybe one whose name was
// rebound to this server's address, may not call next. A request without
// Origin is not a browser's and passes. The server's own origin is the
// request's Host with either scheme, as net/http's CrossOriginProtection
// takes it: a proxy that ends TLS in front of the server hides the scheme.
func OriginGuard(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || sameOrAllowed(origin, r.Host, allowed) {
			next.ServeHTTP(w, r)
			return
		}
		writeError(w, r, workshop.Errorf(workshop.CodeOriginForbidden,
			"Requests from web pages of %s may not use this endpoint; the server's operator can allow that origin.", origin))
	})
}

func sameOrAllowed(origin, host string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" (a sandboxed page or a file) or nonsense
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return slices.Contains(allowed, originOf(u))
}
