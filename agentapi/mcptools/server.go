package mcptools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateAfter is how long closing a stdio server waits after closing its
// stdin before it sends SIGTERM, and again before SIGKILL.
const terminateAfter = 2 * time.Second

// stderrTailBytes is how much of a stdio server's stderr is kept for error
// messages.
const stderrTailBytes = 2048

// conn is one connected server. Its fields do not change after connect
// returns; session is safe for concurrent use.
type conn struct {
	name    string
	session *mcp.ClientSession
	stderr  *tail              // nil for remote servers
	stop    context.CancelFunc // ends the connection's lifetime context
	http    *http.Transport    // nil for stdio servers
	cmd     *exec.Cmd          // nil for remote servers
}

// connect starts or dials one server and opens an MCP session with it.
// Starting is bounded by startCtx; the connection itself lives until close.
// On failure the returned conn, if any, has no session and serves only
// stderrTail.
func connect(startCtx context.Context, client *mcp.Client, name string, s Server) (*conn, error) {
	// The SSE transport keeps the context of its first request for the
	// stream's lifetime, so the connection gets a context of its own that
	// only close ends; startCtx ending during the start ends it too.
	life, stop := context.WithCancel(context.WithoutCancel(startCtx))
	unbind := context.AfterFunc(startCtx, stop)
	c := &conn{name: name, stop: stop}

	var t mcp.Transport
	switch s.Type {
	case TransportStdio:
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir = s.Cwd
		if len(s.Env) > 0 {
			cmd.Env = os.Environ()
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				cmd.Env = append(cmd.Env, k+"="+s.Env[k]) // later entries win
			}
		}
		c.stderr = &tail{}
		cmd.Stderr = c.stderr
		c.cmd = cmd
		// A server's own children may hold stderr open after it exits.
		cmd.WaitDelay = time.Second
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}
	case TransportHTTP, TransportSSE:
		c.http = http.DefaultTransport.(*http.Transport).Clone()
		hc := &http.Client{Transport: &headerTransport{base: c.http, headers: s.Headers}}
		if s.Type == TransportHTTP {
			t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, DisableStandaloneSSE: true}
		} else {
			t = &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
		}
	default:
		stop()
		return nil, fmt.Errorf("unknown transport %q", s.Type)
	}

	session, err := client.Connect(life, t, nil)
	if err == nil && !unbind() {
		// startCtx ended just as the session opened.
		_ = session.Close()
		err = context.Cause(startCtx)
	}
	if err != nil {
		stop()
		if c.http != nil {
			c.http.CloseIdleConnections()
		}
		switch {
		case startCtx.Err() != nil:
			err = context.Cause(startCtx) // err only says the session was cut
		case c.cmd != nil && c.cmd.ProcessState != nil:
			// The session was closed after the program had exited.
			err = fmt.Errorf("the program exited (%v) before answering: %w", c.cmd.ProcessState, err)
		}
		return c, err // c.stderr may explain the failure; nothing is left running
	}
	c.session = session
	return c, nil
}

// close ends the session (for stdio: closes stdin, then signals the process
// if it does not exit) and releases what the connection holds.
func (c *conn) close() error {
	err := c.session.Close()
	c.stop()
	if c.http != nil {
		c.http.CloseIdleConnections()
	}
	// A stdio server's exit status after we closed its stdin is not a
	// failure of ours.
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// stderrTail is the end of a stdio server's stderr, or "".
func (c *conn) stderrTail() string {
	if c == nil || c.stderr == nil {
		return ""
	}
	return c.stderr.String()
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// tail keeps the last stderrTailBytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?"))
}
