package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestMCPStdioAnswersEveryRequest: a client that writes its requests and
// closes stdin at once gets an answer to every one before `workshop mcp`
// ends.
func TestMCPStdioAnswersEveryRequest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		o := w.org("Stdio Motors", workshop.PlanPro, 1)
		token, err := w.op.CreateMCPToken(context.Background(), o.Owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		loc := o.Locations[0].ID
		// id: the request; want: "result" or "error" in its answer.
		requests := []struct {
			id, method, params, want string
		}{
			{"1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}`, "result"},
			{"", "notifications/initialized", `{}`, ""},
			{"2", "tools/list", `{}`, "result"},
			{"3", "tools/call", `{"name":"get_workshop_settings","arguments":{}}`, "result"},
			{"4", "tools/call", fmt.Sprintf(`{"name":"list_jobs","arguments":{"locationId":%q}}`, loc), "result"},
			{"5", "tools/call", fmt.Sprintf(`{"name":"get_board_summary","arguments":{"locationId":%q}}`, loc), "result"},
			{`"six"`, "tools/call", `{"name":"list_technicians","arguments":{"limit":1}}`, "result"},
			{"7", "tools/call", `{"name":"no_such_tool","arguments":{}}`, "error"},
			{"8", "ping", `{}`, "result"},
		}
		var in strings.Builder
		want := map[string]string{}
		for _, r := range requests {
			if r.id == "" {
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", r.method, r.params)
				continue
			}
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", r.id, r.method, r.params)
			want[r.id] = r.want
		}
		var stdout, stderr bytes.Buffer
		err = mcpCmd(t.Context(), []string{"--token", token.Token, "--database", db.URL}, envOf(nil),
			strings.NewReader(in.String()), &stdout, &stderr)
		if err != nil {
			t.Fatalf("workshop mcp: %v (stderr %s)", err, stderr.String())
		}
		got := map[string]string{}
		lines := bufio.NewScanner(&stdout)
		lines.Buffer(nil, 1<<24)
		for lines.Scan() {
			var answer map[string]json.RawMessage
			if err := json.Unmarshal(lines.Bytes(), &answer); err != nil {
				t.Fatalf("an answer is not JSON: %v: %.200s", err, lines.Text())
			}
			for _, member := range []string{"result", "error"} {
				if _, ok := answer[member]; ok {
					got[string(answer["id"])] = member
				}
			}
		}
		for id, member := range want {
			if got[id] != member {
				t.Errorf("request %s: got %q, want an answer with %q", id, got[id], member)
			}
		}
		if len(got) != len(want) {
			t.Errorf("got %d answers %v, want %d", len(got), got, len(want))
		}
	})
}
