package httpapi

import (
	"fmt"
	"net"
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
// returns them): a web page of another site may not call next. A request
// without Origin is not a browser's and passes.
//
// The server's own origin is the request's Host, with either scheme (a
// proxy that ends TLS in front of the server hides it), as net/http's
// CrossOriginProtection takes it. But a page whose name was rebound to
// this machine's address sends its own name as both Host and Origin: so a
// request that reached a loopback address from a page of a name that is
// not loopback is refused unless the operator allowed that origin (the
// DNS-rebinding attack on local servers the MCP specification describes).
func OriginGuard(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || sameOrAllowed(r, origin, allowed) {
			next.ServeHTTP(w, r)
			return
		}
		writeError(w, r, workshop.Errorf(workshop.CodeOriginForbidden,
			"Requests from web pages of %s may not use this endpoint; the server's operator can allow that origin.", origin))
	})
}

func sameOrAllowed(r *http.Request, origin string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" (a sandboxed page or a file) or nonsense
	}
	if slices.Contains(allowed, originOf(u)) {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	rebound := local != nil && isLoopback(local.String()) && !isLoopback(u.Host)
	return strings.EqualFold(u.Host, r.Host) && !rebound
}

// isLoopback tells whether a host (with or without a port) is this machine.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
