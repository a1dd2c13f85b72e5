package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/workshop-platform/workshop/internal/loadgen"
)

func init() {
	scenarios["mcp_get_job"] = scenario{
		description: "MCP tools/call get_job (a stateless JSON-RPC POST to /mcp with the MCP token: token lookup, a temporary " +
			"session, the REST read in-process, the result as text and structured content) of a job with 5 steps vs " +
			"GET /v1/scheduler/jobs/{id} of the same job with an org key, closed loop; the ratio is MCP / REST",
		versus: func(ctx context.Context, e *env) (loadgen.Request, loadgen.Request, error) {
			jobs, err := e.seedJobs(ctx, 1, 5)
			if err != nil {
				return nil, nil, err
			}
			id := jobs[0].job.ID
			call := e.mcpCall("get_job", map[string]any{"jobId": id})
			rest := e.get("/v1/scheduler/jobs/"+id, e.orgKey)
			if err := e.sameResult(call, rest); err != nil {
				return nil, nil, err
			}
			return call, rest, nil
		},
	}
}

// mcpCall builds a tools/call POST to /mcp with the MCP token, as a client
// of the stateless endpoint sends it (no initialize is needed).
func (e *env) mcpCall(tool string, args map[string]any) loadgen.Request {
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	return func(i int64) (*http.Request, error) {
		body := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(i+1, 10) + `,"method":"tools/call","params":` + string(params) + `}`
		r, err := http.NewRequest(http.MethodPost, e.base+"/mcp", bytes.NewBufferString(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "Bearer "+e.mcpToken)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2025-06-18")
		return r, nil
	}
}

// sameResult makes sure, before measuring, that the tool call succeeds
// (a tool error is an HTTP 200 too) and answers the REST read's JSON.
func (e *env) sameResult(call, rest loadgen.Request) error {
	do := func(build loadgen.Request) ([]byte, error) {
		r, err := build(0)
		if err != nil {
			return nil, err
		}
		resp, err := e.client.Do(r)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s %s: %d %s", r.Method, r.URL.Path, resp.StatusCode, body)
		}
		return body, err
	}
	restBody, err := do(rest)
	if err != nil {
		return err
	}
	callBody, err := do(call)
	if err != nil {
		return err
	}
	var msg struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(callBody, &msg); err != nil || msg.Result.IsError {
		return fmt.Errorf("the tool call failed: %s", callBody)
	}
	var a, b any
	_ = json.Unmarshal(msg.Result.StructuredContent, &a)
	_ = json.Unmarshal(restBody, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Errorf("the tool's result %s is not the REST read's %s", msg.Result.StructuredContent, restBody)
	}
	return nil
}
