package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request for a method the server does not have is the JSON-RPC error
// -32601 with the request's id, whatever its id's type; the methods it
// has are the SDK's answers as they were; a notification of an unknown
// method, which no response may answer, stays the SDK's 400.
func TestMethodNotFound(t *testing.T) {
	t.Parallel()
	srv, err := New(&fakeReader{status: 200, body: `{}`}, nil, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(methodNotFound(streamable(srv, nil)))
	defer ts.Close()
	post := func(t *testing.T, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
	}
	for _, tc := range []struct {
		name, body string
		wantID     string // "": no JSON-RPC answer expected
		wantCode   int    // 0: a result
		wantStatus int
	}{
		{"an unknown method", `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{}}`, "7", -32601, 200},
		{"a string id", `{"jsonrpc":"2.0","id":"a-1","method":"tasks/list"}`, `"a-1"`, -32601, 200},
		{"a misspelt method", `{"jsonrpc":"2.0","id":3,"method":"tools/lsit","params":{}}`, "3", -32601, 200},
		{"a method it has", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, "4", 0, 200},
		{"a method it has, with its own error", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool"}}`, "5", -32602, 200},
		{"a notification of an unknown method", `{"jsonrpc":"2.0","method":"notifications/foo"}`, "", 0, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ct, body := post(t, tc.body)
			if status != tc.wantStatus {
				t.Fatalf("status %d %q, want %d", status, body, tc.wantStatus)
			}
			if tc.wantID == "" {
				return
			}
			var answer struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if !strings.HasPrefix(ct, "application/json") || json.Unmarshal([]byte(body), &answer) != nil || answer.JSONRPC != "2.0" {
				t.Fatalf("got %s %q, want a JSON-RPC answer", ct, body)
			}
			if string(answer.ID) != tc.wantID {
				t.Errorf("id %s, want %s", answer.ID, tc.wantID)
			}
			switch {
			case tc.wantCode == 0 && (answer.Error != nil || answer.Result == nil):
				t.Errorf("got %s, want a result", body)
			case tc.wantCode != 0 && (answer.Error == nil || answer.Error.Code != tc.wantCode):
				t.Errorf("got %s, want the error %d", body, tc.wantCode)
			}
		})
	}
}
