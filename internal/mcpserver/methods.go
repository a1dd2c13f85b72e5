package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// notHandled is how the SDK's Streamable HTTP handler begins its plain-text
// 400 for a JSON-RPC request whose method it has no handler for (go-sdk
// v1.8 answers so for the protocol versions before 2026-07-28).
const notHandled = "JSON RPC not handled"

// maxPeek bounds the body read to find a request's id and method; a longer
// body is passed on as it came.
const maxPeek = 1 << 20

// methodNotFound makes the SDK's answer to a request for a method the
// server does not have (tasks/list, a misspelt tools/lsit) what JSON-RPC
// and the MCP specification say it is: a JSON-RPC error response,
// -32601 "method not found", with the request's id, in a 200 as the SDK
// sends its other errors, instead of a plain-text 400. The SDK stays the
// one judge of which methods there are: only its own refusal is
// rewritten, and a notification (no id, so no answer to carry an error)
// keeps its 400.
func methodNotFound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err != nil || json.Unmarshal(head, &call) != nil || len(call.ID) == 0 || bytes.Equal(call.ID, []byte("null")) {
			next.ServeHTTP(w, r)
			return
		}
		hw := &refusalWriter{ResponseWriter: w}
		next.ServeHTTP(hw, r)
		if hw.held == nil {
			return
		}
		if !strings.HasPrefix(hw.held.String(), notHandled) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(hw.held.Bytes())
			return
		}
		answer, _ := json.Marshal(errorResponse{JSONRPC: "2.0", ID: call.ID,
			Error: rpcError{Code: codeMethodNotFound, Message: "method not found: " + strconv.Quote(call.Method)}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(answer)
	})
}

// codeMethodNotFound is JSON-RPC 2.0's error code for a method that does
// not exist.
const codeMethodNotFound = -32601

// errorResponse is a JSON-RPC 2.0 error response, members in the SDK's
// order.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// refusalWriter holds back a plain-text 400 (the SDK's refusals) until
// methodNotFound has read it; any other answer goes through.
type refusalWriter struct {
	http.ResponseWriter
	held    *bytes.Buffer
	decided bool
}

func (w *refusalWriter) WriteHeader(code int) {
	if w.decided {
		return
	}
	w.decided = true
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.held = &bytes.Buffer{}
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.held != nil {
		return w.held.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
