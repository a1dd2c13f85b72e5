package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/mcpserver"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// BenchmarkGetJob is the cost of get_job through /mcp next to the REST read
// it wraps, in-process (no network), from parallel goroutines: what the
// MCP layer (the SDK's stateless session, JSON-RPC, the result's two
// forms) adds to a read. `workshop bench --scenario mcp_get_job` measures
// the same over loopback.
func BenchmarkGetJob(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b, storetest.SQLiteURL(b))
	op := operator.New(st)
	org, err := op.CreateOrg(ctx, "Bench Motors", workshop.PlanPro)
	if err != nil {
		b.Fatal(err)
	}
	loc, _ := op.CreateLocation(ctx, org.ID, "Berlin", "Europe/Berlin", "EUR")
	u, _ := op.CreateUser(ctx, org.ID, "owner@example.com", workshop.RoleOwner, false)
	key, _ := op.CreateKey(ctx, operator.KeyRequest{UserID: u.ID})
	token, _ := op.CreateMCPToken(ctx, u.ID)
	now := workshop.MicrosOf(time.Now())
	job, err := st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org.ID, LocationID: loc.ID,
		Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
	if err != nil {
		b.Fatal(err)
	}
	api, err := httpapi.New(st, httpapi.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	h, err := mcpserver.HTTPHandler(api, mcpserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	api.Mount("/mcp", h)
	handler := api.Handler()
	run := func(b *testing.B, req func() *http.Request) {
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w := httptest.NewRecorder()
				handler.ServeHTTP(w, req())
				if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"isError":true`) {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
	b.Run("rest", func(b *testing.B) {
		run(b, func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/v1/scheduler/jobs/"+job.Job.ID, nil)
			r.Header.Set("Authorization", "Bearer "+key.Key)
			return r
		})
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_job","arguments":{"jobId":"` + job.Job.ID + `"}}}`
	b.Run("mcp", func(b *testing.B) {
		run(b, func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+token.Token)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("MCP-Protocol-Version", "2025-06-18")
			return r
		})
	})
}
