package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/agentapi"
)

// Toolbox is the tools of the MCP servers of one Config. It implements
// agentapi.Toolbox and is safe for concurrent use. New starts every server
// and lists its tools once; Close stops them.
type Toolbox struct {
	conns  []*conn // sorted by server name
	tools  []agentapi.Tool
	routes map[string]route // model-facing name → where it goes

	// life ends when Close starts; every Call's context ends with it, so that
	// Close does not wait for calls in flight (closing a session does).
	life      context.Context
	endLife   context.CancelFunc
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// route is where a model-facing tool name goes.
type route struct {
	conn *conn
	tool string // the server's own name for the tool
}

var _ agentapi.Toolbox = (*Toolbox)(nil)

// New starts (stdio) or connects to (http, sse) every enabled server of cfg,
// in parallel, and lists their tools. Each server gets cfg.StartTimeout
// (default DefaultStartTimeout), and ctx bounds them all; ctx is used only
// while New runs. If any server fails, New stops the others and returns an
// error naming every server that failed (a *ServerError each, joined).
//
// The caller must Close the Toolbox.
func New(ctx context.Context, cfg Config) (*Toolbox, error) {
	timeout := cfg.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "wfrun", Version: "v0"}, nil)

	names := slices.Sorted(maps.Keys(cfg.Servers))
	names = slices.DeleteFunc(names, func(n string) bool { return cfg.Servers[n].Disabled })

	type started struct {
		conn  *conn
		tools []*mcp.Tool
		err   error
	}
	results := make([]started, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			c, tools, err := start(sctx, client, name, cfg.Servers[name])
			var se *ServerError
			if errors.As(err, &se) && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				se.Err = fmt.Errorf("no answer within %v (Config.StartTimeout): %w", timeout, se.Err)
			}
			results[i] = started{c, tools, err}
		})
	}
	wg.Wait()

	tb := &Toolbox{routes: make(map[string]route)}
	tb.life, tb.endLife = context.WithCancel(context.Background())
	var errs []error
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
		}
		if r.conn != nil {
			tb.conns = append(tb.conns, r.conn)
		}
	}
	if len(errs) > 0 {
		_ = tb.Close()
		return nil, errors.Join(errs...)
	}

	taken := make(map[string]bool)
	for _, r := range results {
		for _, t := range r.tools {
			name := toolName(r.conn.name, t.Name, taken)
			desc := t.Description
			if desc == "" {
				desc = t.Title
			}
			tb.tools = append(tb.tools, agentapi.Tool{Name: name, Description: desc, InputSchema: inputSchema(t.InputSchema)})
			tb.routes[name] = route{conn: r.conn, tool: t.Name}
		}
	}
	return tb, nil
}

// start connects to one server and lists its tools. On failure it leaves
// nothing running.
func start(ctx context.Context, client *mcp.Client, name string, s Server) (*conn, []*mcp.Tool, error) {
	c, err := connect(ctx, client, name, s)
	if err != nil {
		se := &ServerError{Server: name, Op: "start", Err: err}
		if s.Type == TransportStdio {
			se.Op = fmt.Sprintf("could not start %q", s.Command)
			if c != nil {
				se.Stderr = c.stderrTail()
			}
		} else {
			se.Op = fmt.Sprintf("could not connect to %s", s.URL)
		}
		return nil, nil, se
	}
	var tools []*mcp.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			_ = c.close()
			return nil, nil, &ServerError{Server: name, Op: "list tools", Stderr: c.stderrTail(), Err: err}
		}
		tools = append(tools, t)
	}
	return c, tools, nil
}

// inputSchema is the tool's schema as JSON, or {"type":"object"} when the
// server gave none (or one that is not an object).
func inputSchema(s any) json.RawMessage {
	if s != nil {
		if b, err := json.Marshal(s); err == nil && len(b) > 0 && b[0] == '{' {
			return b
		}
	}
	return json.RawMessage(`{"type":"object"}`)
}

// Tools returns the tools listed by New, in a stable order (servers by
// name, then each server's own order). It never contacts a server. The
// caller must not modify the returned Tools.
func (tb *Toolbox) Tools(ctx context.Context) ([]agentapi.Tool, error) {
	if tb.closed.Load() {
		return nil, ErrClosed
	}
	return slices.Clone(tb.tools), nil
}

// Call runs the tool the model knows as name with args, a JSON object (empty
// or null means {}), and returns its text. The error is for the model: an
// unknown name, arguments that are not a JSON object, the tool's own
// failure (*ToolError), a server that cannot be reached (*ServerError), or
// ctx ending (wrapping ctx's error). Call returns as soon as ctx ends; the
// server is told to cancel the call.
func (tb *Toolbox) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if tb.closed.Load() {
		return "", ErrClosed
	}
	r, ok := tb.routes[name]
	if !ok {
		return "", fmt.Errorf("%w %q; the available tools are: %s", ErrUnknownTool, name, tb.toolList())
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	if !json.Valid(args) || args[0] != '{' {
		return "", fmt.Errorf("the arguments of %s must be a JSON object, got: %s", name, truncate(string(args), 200))
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(tb.life, cancel)()
	res, err := r.conn.session.CallTool(callCtx, &mcp.CallToolParams{Name: r.tool, Arguments: args})
	if err != nil {
		if tb.closed.Load() {
			return "", ErrClosed
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("tool %s was stopped: %w", name, context.Cause(ctx))
		}
		se := &ServerError{Server: r.conn.name, Op: "call " + r.tool, Err: err}
		if errors.Is(err, mcp.ErrConnectionClosed) {
			se.Stderr = r.conn.stderrTail()
		}
		return "", se
	}
	text := resultText(res)
	if res.IsError {
		return "", &ToolError{Tool: name, Message: text}
	}
	return text, nil
}

// toolList names the tools for an error message, at most 20 of them.
func (tb *Toolbox) toolList() string {
	if len(tb.tools) == 0 {
		return "(none)"
	}
	names := make([]string, 0, min(len(tb.tools), 21))
	for i, t := range tb.tools {
		if i == 20 {
			names = append(names, fmt.Sprintf("and %d more", len(tb.tools)-20))
			break
		}
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Close ends every session and stops every stdio server: it closes the
// server's stdin, waits for it to exit, and signals it (SIGTERM, then
// SIGKILL, each after terminateAfter) if it does not. Servers are closed in
// parallel, and Close returns when all have exited. Calls in flight are
// cancelled at once and return ErrClosed.
// Close is idempotent; every call returns the first call's result.
func (tb *Toolbox) Close() error {
	tb.closeOnce.Do(func() {
		tb.closed.Store(true)
		tb.endLife()
		errs := make([]error, len(tb.conns))
		var wg sync.WaitGroup
		for i, c := range tb.conns {
			wg.Go(func() {
				if err := c.close(); err != nil {
					errs[i] = fmt.Errorf("MCP server %q: closing: %w", c.name, err)
				}
			})
		}
		wg.Wait()
		tb.closeErr = errors.Join(errs...)
	})
	return tb.closeErr
}
