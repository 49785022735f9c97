package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioOwner is the Options.Owner of a server on stdio, as wfrun mcp
// serves it: one session per process, so a fixed owner lets the next
// process (the client restarted the server) see and resume the runs.
const StdioOwner = "mcp"

// Endpoint is where Start serves: streamable HTTP on Addr, every request
// carrying Token ("" none, which CheckBind allows on loopback only), or,
// with Addr "", one session on In and Out (LineTransport), as wfrun mcp
// does by default.
type Endpoint struct {
	Addr, Token string
	In          io.Reader
	Out         io.Writer
}

// Check refuses an endpoint that Start would serve unsafely or to no
// purpose: HTTP beyond loopback without a token (CheckBind), and a token
// on stdio, which only the process that started the server can reach.
func (ep Endpoint) Check() error {
	if ep.Addr == "" {
		if ep.Token != "" {
			return errors.New("--auth-token protects --http; the stdio server is only reachable by the process that started it, so drop it or add --http ADDR")
		}
		return nil
	}
	return CheckBind(ep.Addr, ep.Token)
}

// Start serves ep in the background until ctx is done, or the client
// closes In: listening is the HTTP address it listens on (nil on stdio),
// and served gets the end of serving, nil when nothing failed (ctx done,
// In closed). Its error is an address that refuses to listen; CheckBind
// is the caller's to apply first.
func (s *Server) Start(ctx context.Context, ep Endpoint) (listening net.Addr, served <-chan error, err error) {
	ch := make(chan error, 1)
	if ep.Addr == "" {
		t := LineTransport(ep.In, ep.Out)
		go func() { ch <- ended(s.Run(ctx, t)) }()
		return nil, ch, nil
	}
	l, err := net.Listen("tcp", ep.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--http %s: cannot listen: %v", ep.Addr, err)
	}
	go func() { ch <- ended(s.ServeHTTP(ctx, l, ep.Token)) }()
	return l.Addr(), ch, nil
}

// ended is err, or nil for the ends of serving that are not failures: the
// context done, the client gone.
func ended(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
