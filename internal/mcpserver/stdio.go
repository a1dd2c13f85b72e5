package mcpserver

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunStdio serves srv on newline-delimited JSON-RPC from in to out until in
// ends (or ctx is done), answering every request read before it returns:
// a client may write its requests, close its end and read the answers.
// out is not closed.
func RunStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	return srv.Run(ctx, answerAll{t})
}

// nopWriteCloser leaves out open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// answerAll holds back the end of its connection's input until every
// request read has been answered: the SDK ends the session, and cancels
// the calls in flight, as soon as a read fails. (The wrapper hides the
// SDK's own connection from its protocol-version notice, which only makes
// it refuse JSON-RPC batches of 2025-06-18 and later: those are answered.)
type answerAll struct{ mcp.Transport }

func (t answerAll) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &answeringConn{Connection: c, pending: map[jsonrpc.ID]int{}, answered: make(chan struct{}, 1)}, nil
}

type answeringConn struct {
	mcp.Connection
	mu       sync.Mutex
	pending  map[jsonrpc.ID]int // calls read and not answered yet, by id
	answered chan struct{}      // a call was answered
}

func (c *answeringConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.waitAnswered(ctx)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID]++
		c.mu.Unlock()
	}
	return msg, nil
}

func (c *answeringConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending[resp.ID]--; c.pending[resp.ID] <= 0 {
			delete(c.pending, resp.ID)
		}
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// waitAnswered returns when no call read is unanswered, or ctx is done.
func (c *answeringConn) waitAnswered(ctx context.Context) {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return
		}
	}
}
