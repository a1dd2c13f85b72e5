package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/mcpserver"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// stdin is what `workshop mcp` reads its JSON-RPC messages from.
var stdin io.Reader = os.Stdin

// mcpCmd runs `workshop mcp --token T`: the MCP tools of /mcp over stdio
// (newline-delimited JSON-RPC on stdin and stdout), for desktop assistants
// that start the server as a subprocess. Every request read is answered
// before the command ends on the end of stdin. The token is checked once at start
// (a bad one fails the command) and again on every tool call. Logs go to
// stderr: stdout belongs to the protocol.
func mcpCmd(ctx context.Context, args []string, getenv env, in io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("mcp")
	db := databaseFlag(fs, getenv)
	token := getenv.string(fs, "token", "WORKSHOP_MCP_TOKEN", "", "the MCP token (wsm_...) the tools act as")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	if *token == "" {
		return usageError{errors.New("give the MCP token with --token wsm_... (or WORKSHOP_MCP_TOKEN); make one with: workshop admin mcp-token create --user USER_ID")}
	}
	if !strings.HasPrefix(*token, workshop.MCPTokenPrefix) {
		return usageError{fmt.Errorf("--token: an MCP token starts with %s (API keys, wsk_..., are for the REST API)", workshop.MCPTokenPrefix)}
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The tools read a workshop's data: a mistyped path must not make an
	// empty database the assistant then finds nothing in.
	st, err := store.Open(ctx, *db, store.ExistingOnly())
	if errors.Is(err, store.ErrNoDatabase) {
		return fmt.Errorf("%w; workshop mcp reads the database of a workshop: give its --database (workshop serve or workshop migrate makes one)", err)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	api, err := httpapi.New(st, httpapi.Config{Logger: log})
	if err != nil {
		return err
	}
	caller := mcpserver.TokenCaller(st, *token, time.Now)
	if _, err := caller(ctx); err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	srv, err := mcpserver.New(api, caller, mcpserver.Options{Version: build.Version, Logger: log})
	if err != nil {
		return err
	}
	err = mcpserver.RunStdio(ctx, srv, in, stdout)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil // the client closed stdin, or the process is stopping
	}
	return err
}
