package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The SSRF guard: a webhook URL may name only a public HTTPS endpoint. It is
// checked when a registration is made or changed (the host is resolved and
// every address must be public) and enforced again on every delivery on
// the address actually dialled (net.Dialer.Control), so a host that
// resolves to a public address at registration and to a private one later
// (DNS rebinding) is refused. Deliveries use no proxy and follow no
// redirects. AllowInsecure lifts all of it (development and tests).

// Resolver looks up the addresses of a host (net.DefaultResolver does).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard decides which webhook URLs and addresses may be used.
type Guard struct {
	// AllowInsecure allows http:// and every address (loopback, private, ...).
	AllowInsecure bool
	// Resolver resolves hosts, at registration and at dial time; nil:
	// net.DefaultResolver.
	Resolver Resolver
}

// BlockedError says why an address may not be called.
type BlockedError struct {
	Addr   netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s is a %s address, which webhooks may not call", e.Addr, e.Reason)
}

// blockedPrefixes are the ranges no webhook may reach, with what they are.
// IPv4-mapped IPv6 addresses are unmapped before they are looked up here.
var blockedPrefixes = func() []struct {
	p      netip.Prefix
	reason string
} {
	list := []struct{ cidr, reason string }{
		{"0.0.0.0/8", "unspecified (this network)"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "shared (CGNAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.169.254/32", "cloud metadata"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignment"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"255.255.255.255/32", "broadcast"},
		{"240.0.0.0/4", "reserved"},

		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible"},
		{"::ffff:0:0:0/96", "IPv4-translated"},
		{"64:ff9b::/96", "NAT64"},
		{"64:ff9b:1::/48", "NAT64"},
		{"100::/64", "discard-only"},
		{"2001:db8::/32", "documentation"},
		{"2001::/23", "IETF protocol assignment (Teredo, benchmarking, ORCHID)"},
		{"2002::/16", "6to4"},
		{"3fff::/20", "documentation"},
		{"5f00::/16", "segment routing"},
		{"fd00:ec2::254/128", "cloud metadata"},
		{"fc00::/7", "unique local (private)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	}
	out := make([]struct {
		p      netip.Prefix
		reason string
	}, len(list))
	for i, l := range list {
		out[i].p, out[i].reason = netip.MustParsePrefix(l.cidr), l.reason
	}
	return out
}()

// CheckAddr refuses an address webhooks may not call (nil when it is public).
func CheckAddr(a netip.Addr) error {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return &BlockedError{Addr: a, Reason: "invalid"}
	}
	for _, b := range blockedPrefixes {
		if b.p.Contains(a) {
			return &BlockedError{Addr: a, Reason: b.reason}
		}
	}
	return nil
}

// URLError is a webhook URL refused at registration.
type URLError struct{ Reason string }

func (e *URLError) Error() string { return e.Reason }

// CheckURL validates a webhook URL for a registration: absolute https://
// (http:// too when insecure), a host, no credentials, and (unless
// insecure) a host whose every address is public.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return &URLError{"url must be an absolute https:// URL."}
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowInsecure:
	default:
		return &URLError{fmt.Sprintf("url must use https:// (got %s://).", u.Scheme)}
	}
	if u.User != nil {
		return &URLError{"url must not carry credentials (user:password@); authenticate deliveries with the signature."}
	}
	host := u.Hostname()
	if host == "" {
		return &URLError{"url has no host."}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return &URLError{fmt.Sprintf("url has an invalid port %q.", p)}
		}
	}
	if g.AllowInsecure {
		return nil
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return &URLError{fmt.Sprintf("url's host %s %s.", host, lookupFailure(err))}
	}
	for _, a := range addrs {
		if err := CheckAddr(a); err != nil {
			return &URLError{fmt.Sprintf("url's host %s resolves to %v.", host, err)}
		}
	}
	return nil
}

// resolve gives the addresses of host: a literal address in any of its
// forms (IPv6, dotted IPv4, and the shorthand, octal, hexadecimal and
// integer IPv4 forms inet_aton accepts, such as 127.1, 0x7f.1 or
// 2130706433), or the resolver's answer.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := parseIPLiteral(host); ok {
		return []netip.Addr{a}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", strings.TrimSuffix(host, "."))
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, errNoAddress
	}
	return addrs, nil
}

// lookupFailure says why a host could not be resolved, in words that name
// no address of this side: Go's resolver errors quote the DNS server
// ("lookup x on 10.255.255.53:53: no such host"), which a registration's
// answer or a delivery's lastError must not show.
func lookupFailure(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "does not exist (no DNS record)"
	case errors.As(err, &dns) && dns.IsTimeout, errors.Is(err, context.DeadlineExceeded):
		return "could not be resolved in time"
	case errors.Is(err, errNoAddress):
		return "has no address"
	}
	return "could not be resolved"
}

var errNoAddress = errors.New("no address")

// parseIPLiteral reads host as an IP address literal, IPv4 in the forms of
// inet_aton too (1 to 4 parts, each decimal, octal with a leading 0 or
// hexadecimal with 0x, the last filling the remaining bytes).
func parseIPLiteral(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.WithZone(""), true
	}
	parts := strings.Split(h, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base, digits := 10, p
		switch {
		case strings.HasPrefix(strings.ToLower(p), "0x"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 0xff {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// control is the dial hook: it runs on the address about to be connected
// to, after every resolution, and refuses a blocked one.
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook dial: unexpected address %q", address)
	}
	return CheckAddr(ap.Addr())
}

// DialContext connects to addr ("host:port"): the host is resolved with the
// guard's resolver (a literal in any form taken as it is) and each address
// tried in turn; unless insecure, a blocked address is refused by the dial
// hook, on the address really dialled.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if !g.AllowInsecure {
		d.Control = control
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, &net.DNSError{Err: lookupFailure(err), Name: host}
	}
	var first error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}
