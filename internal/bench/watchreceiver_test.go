package bench

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParsePortRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    PortRange
		wantErr bool
	}{
		{"", PortRange{}, false},
		{"18000-18099", PortRange{18000, 18099}, false},
		{"18000", PortRange{}, true},
		{"18099-18000", PortRange{}, true},
		{"0-10", PortRange{}, true},
		{"1-70000", PortRange{}, true},
	}
	for _, tc := range tests {
		got, err := ParsePortRange(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParsePortRange(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestPortsSkipBusyPorts: the range's ports are handed out in turn, a port
// in use skipped, and the range's end is an error.
func TestPortsSkipBusyPorts(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	if port >= 65535 {
		t.Skip("no port after the busy one")
	}
	p := &ports{r: PortRange{Low: port, High: port + 1}}
	got, err := p.addr()
	if err != nil {
		// the next port may be busy too on a shared machine
		t.Skipf("port %d busy as well: %v", port+1, err)
	}
	if want := "127.0.0.1:" + strconv.Itoa(port+1); got != want {
		t.Errorf("addr = %s, want %s (the busy port skipped)", got, want)
	}
	if _, err := p.addr(); err == nil {
		t.Errorf("addr past the range's end: no error")
	}
}

// TestRiskReceiverCounts: the receiver keeps each job's first job.at_risk
// arrival, counts an attempt made again and a second delivery of an event.
func TestRiskReceiverCounts(t *testing.T) {
	t.Parallel()
	r, err := startRiskReceiver(&ports{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.stop()
	post := func(delivery, event string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(`{"id":"`+event+`","event":"job.at_risk","data":{"id":"job_1"}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Service-Delivery", delivery)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	before := time.Now()
	post("dlv_1", "evt_1")
	post("dlv_1", "evt_1") // the attempt made again
	post("dlv_2", "evt_1") // a second delivery of the event
	a, ok := r.arrived("job_1")
	if !ok || a.delivery != "dlv_1" || a.attempts != 3 || a.at.Before(before) {
		t.Errorf("arrival = %+v, %v; want dlv_1 first, 3 arrivals", a, ok)
	}
	if d, twice := r.duplicates([]string{"job_1"}); d != 1 || twice != 0 {
		t.Errorf("duplicates = %d, %d; want 1 delivery too many, no turn told twice", d, twice)
	}
}
