package bench

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/workshop-platform/workshop/internal/loadgen"
)

// BenchmarkServerSide measures what each scenario costs the server alone,
// in-process without the network or the load generator: the number to
// look at when a ratio figure falls short (go test -bench ServerSide
// -cpuprofile). The control is the fixed-response handler. The create
// runs 64 requests at once, as the closed loop's connections, so that its
// writes are grouped as they are under that load: its time per request
// is the server's throughput, not one create's latency.
func BenchmarkServerSide(b *testing.B) {
	for _, name := range []string{"me", "get_job", "job_detail", "mcp_get_job", "create_job"} {
		b.Run(name, func(b *testing.B) {
			if name == "create_job" {
				b.SetParallelism(64 / runtime.GOMAXPROCS(0))
			}
			e, cleanup, err := start(b.Context(), "", 0)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(cleanup)
			sc := scenarios[name]
			var req loadgen.Request
			if sc.versus != nil {
				req, _, err = sc.versus(b.Context(), e)
			} else {
				req, err = sc.prepare(b.Context(), e)
			}
			if err != nil {
				b.Fatal(err)
			}
			serve(b, e.handler, req)
		})
	}
	b.Run("control", func(b *testing.B) {
		serve(b, loadgen.ControlHandler(), func(int64) (*http.Request, error) {
			return http.NewRequest(http.MethodGet, "http://control/", nil)
		})
	})
}

func serve(b *testing.B, h http.Handler, req loadgen.Request) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var i int64
		for pb.Next() {
			r, err := req(i)
			if err != nil {
				b.Fatal(err)
			}
			i++
			// As the server sees it: a path, a Host header, a peer.
			r.Host, r.RemoteAddr = r.URL.Host, "127.0.0.1:40000"
			r.URL.Scheme, r.URL.Host = "", ""
			if r.Body == nil {
				r.Body = http.NoBody // as the server gives
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code >= 300 {
				b.Fatalf("%s %s: %d %s", r.Method, r.URL, w.Code, w.Body)
			}
		}
	})
}
