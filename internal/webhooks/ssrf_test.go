package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/workshop-platform/workshop/internal/webhooks"
)

// fakeResolver answers from a table; a host it does not know does not
// resolve. lookups counts the calls per host.
type fakeResolver struct {
	table   map[string][]string
	answers func(host string, n int) []string // when set, wins over table
	calls   atomic.Int32
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n := int(r.calls.Add(1))
	list := r.table[host]
	if r.answers != nil {
		list = r.answers(host, n)
	}
	if list == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

// TestCheckURLRefusesEveryBlockedForm registers URLs naming blocked
// addresses in every form: literal, odd IPv4 encodings, IPv4-mapped IPv6,
// and hosts resolving to them.
func TestCheckURLRefusesEveryBlockedForm(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{table: map[string][]string{
		"hooks.example.com":  {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
		"localhost":          {"127.0.0.1", "::1"},
		"mixed.example.com":  {"93.184.216.34", "10.1.2.3"},
		"meta.example.com":   {"169.254.169.254"},
		"mapped.example.com": {"::ffff:192.168.0.1"},
	}}
	g := &webhooks.Guard{Resolver: res}
	blocked := []struct{ url, why string }{
		{"https://127.0.0.1/hook", "loopback"},
		{"https://127.1/hook", "loopback"},
		{"https://0x7f.1/hook", "loopback"},
		{"https://0x7f000001/hook", "loopback"},
		{"https://2130706433/hook", "loopback"},
		{"https://017700000001/hook", "loopback"},
		{"https://0177.0.0.1/hook", "loopback"},
		{"https://[::1]/hook", "loopback"},
		{"https://[::ffff:127.0.0.1]/hook", "loopback"},
		{"https://[::ffff:7f00:1]/hook", "loopback"},
		{"https://[0:0:0:0:0:ffff:127.0.0.1]/hook", "loopback"},
		{"https://localhost/hook", "loopback"},
		{"https://localhost./hook", "loopback"},
		{"https://10.0.0.1/", "private"},
		{"https://172.16.5.4/", "private"},
		{"https://172.31.255.255/", "private"},
		{"https://192.168.1.1/", "private"},
		{"https://[::ffff:10.0.0.1]/", "private"},
		{"https://mapped.example.com/", "private"},
		{"https://[fc00::1]/", "unique local"},
		{"https://[fd12:3456::1]/", "unique local"},
		{"https://169.254.169.254/latest/meta-data/", "metadata"},
		{"https://[::ffff:169.254.169.254]/", "metadata"},
		{"https://0xa9fea9fe/", "metadata"},
		{"https://meta.example.com/", "metadata"},
		{"https://[fd00:ec2::254]/", "metadata"},
		{"https://169.254.1.1/", "link-local"},
		{"https://[fe80::1]/", "link-local"},
		{"https://[fe80::1%25eth0]/", "link-local"},
		{"https://100.64.0.1/", "CGNAT"},
		{"https://100.127.255.254/", "CGNAT"},
		{"https://224.0.0.1/", "multicast"},
		{"https://239.255.255.250/", "multicast"},
		{"https://[ff02::1]/", "multicast"},
		{"https://192.0.2.10/", "documentation"},
		{"https://198.51.100.7/", "documentation"},
		{"https://203.0.113.9/", "documentation"},
		{"https://[2001:db8::1]/", "documentation"},
		{"https://[64:ff9b::7f00:1]/", "NAT64"},
		{"https://[2002:7f00:1::1]/", "6to4"},
		{"https://0.0.0.0/", "unspecified"},
		{"https://0/", "unspecified"},
		{"https://[::]/", "unspecified"},
		{"https://255.255.255.255/", "broadcast"},
		{"https://[::127.0.0.1]/", "IPv4-compatible"},
		{"https://mixed.example.com/", "one address private"},
		{"https://nowhere.example.com/", "does not resolve"},
		{"http://hooks.example.com/", "http"},
		{"ftp://hooks.example.com/", "scheme"},
		{"https://user:secret@hooks.example.com/", "credentials"},
		{"https://user@hooks.example.com/", "credentials"},
		{"https:///nohost", "no host"},
		{"hooks.example.com/x", "not absolute"},
		{"https://hooks.example.com:99999/", "port"},
	}
	for _, c := range blocked {
		err := g.CheckURL(t.Context(), c.url)
		var ue *webhooks.URLError
		if !errors.As(err, &ue) {
			t.Errorf("CheckURL(%q) (%s) = %v, want a URLError", c.url, c.why, err)
		}
	}
	for _, ok := range []string{"https://hooks.example.com/hook", "https://93.184.216.34/x", "https://[2606:2800:220:1:248:1893:25c8:1946]:8443/x",
		"https://hooks.example.com:443/path?q=1"} {
		if err := g.CheckURL(t.Context(), ok); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", ok, err)
		}
	}
	insecure := &webhooks.Guard{AllowInsecure: true, Resolver: res}
	for _, ok := range []string{"http://127.0.0.1:8080/hook", "https://[::1]/x", "http://localhost/x", "http://10.0.0.1/x"} {
		if err := insecure.CheckURL(t.Context(), ok); err != nil {
			t.Errorf("insecure CheckURL(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"ftp://127.0.0.1/", "http://u:p@127.0.0.1/"} {
		if err := insecure.CheckURL(t.Context(), bad); err == nil {
			t.Errorf("insecure CheckURL(%q) = nil, want an error", bad)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr    string
		blocked bool
	}{
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"2001:4860:4860::8888", false}, {"100.63.255.255", false}, {"100.128.0.0", false},
		{"172.15.255.255", false}, {"172.32.0.0", false}, {"198.17.255.255", false}, {"223.255.255.255", false},
		{"127.0.0.1", true}, {"127.255.255.254", true}, {"::ffff:127.0.0.1", true}, {"::ffff:169.254.169.254", true},
		{"169.254.169.254", true}, {"fd00:ec2::254", true}, {"198.18.0.1", true}, {"192.0.0.192", true}, {"2001::1", true},
		{"64:ff9b:1::1", true}, {"fe80::1%eth0", true},
	} {
		err := webhooks.CheckAddr(netip.MustParseAddr(c.addr))
		if (err != nil) != c.blocked {
			t.Errorf("CheckAddr(%s) = %v, want blocked %v", c.addr, err, c.blocked)
		}
	}
}

// TestDialRefusesBlockedAddresses: the dial hook refuses the address
// actually dialled, whatever the registration check saw (DNS rebinding: the
// name resolves to a public address first, to loopback at delivery).
func TestDialRefusesBlockedAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	rebinding := &fakeResolver{answers: func(host string, n int) []string {
		if n == 1 {
			return []string{"93.184.216.34"} // the registration's lookup
		}
		return []string{"127.0.0.1"} // the delivery's
	}}
	g := &webhooks.Guard{Resolver: rebinding}
	url := "https://rebind.example.com:" + port + "/hook"
	if err := g.CheckURL(t.Context(), url); err != nil {
		t.Fatalf("registration check: %v, want it to pass (the name looked public)", err)
	}
	for _, addr := range []string{"rebind.example.com:" + port, "127.0.0.1:" + port, "[::ffff:127.0.0.1]:" + port, "2130706433:" + port} {
		conn, err := g.DialContext(t.Context(), "tcp", addr)
		var blocked *webhooks.BlockedError
		if !errors.As(err, &blocked) {
			if conn != nil {
				conn.Close()
			}
			t.Errorf("DialContext(%s) = %v, want a BlockedError", addr, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests, want none", n)
	}
	// The insecure guard dials loopback.
	conn, err := (&webhooks.Guard{AllowInsecure: true}).DialContext(t.Context(), "tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("insecure dial: %v", err)
	}
	conn.Close()
	if !strings.Contains((&webhooks.BlockedError{Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"}).Error(), "loopback") {
		t.Error("BlockedError does not say why")
	}
}

// serverQuotingResolver fails as Go's resolver does, naming its DNS server.
type serverQuotingResolver struct{ err *net.DNSError }

func (r serverQuotingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, r.err
}

// A host that does not resolve is refused in words that name no address
// of the service's side (its DNS server), at registration and on a dial.
func TestLookupFailuresNameNoResolver(t *testing.T) {
	t.Parallel()
	const server = "10.255.255.53:53"
	for _, tc := range []struct {
		name string
		err  *net.DNSError
		want string
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "nowhere.example.com", Server: server, IsNotFound: true}, "does not exist"},
		{"timeout", &net.DNSError{Err: "i/o timeout", Name: "slow.example.com", Server: server, IsTimeout: true}, "in time"},
		{"server failure", &net.DNSError{Err: "server misbehaving", Name: "odd.example.com", Server: server}, "could not be resolved"},
	} {
		g := &webhooks.Guard{Resolver: serverQuotingResolver{tc.err}}
		reg := g.CheckURL(t.Context(), "https://"+tc.err.Name+"/hook")
		_, dial := g.DialContext(t.Context(), "tcp", tc.err.Name+":443")
		for what, err := range map[string]error{"registration": reg, "dial": dial} {
			if err == nil || strings.Contains(err.Error(), "10.255.255.53") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, %s: got %v, want it to say %q and not name the resolver", tc.name, what, err, tc.want)
			}
		}
	}
}
