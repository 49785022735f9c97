package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// StartTimeout bounds starting an agent: its process, initialize and
// session/new together. An agent fetched by npx on first use needs a while;
// one that is not an ACP agent at all would otherwise hang the child.
const StartTimeout = 60 * time.Second

// errStartTimeout is the cause of a start that took longer than StartTimeout.
var errStartTimeout = errors.New("the agent did not start in time")

// child is one Run: the child's place to work, its agent process, the
// connection to it and the one session. Its methods run on Run's goroutine;
// the fields under mu are also written by the SDK's goroutines, which
// deliver the agent's notifications and requests (client.go).
type child struct {
	p      *Provider
	req    agentapi.Request
	schema *schema.Schema
	grace  time.Duration

	ws       *workspace.Workspace // the child's root and sandbox mode
	worktree *workspace.Worktree  // under isolation: 'worktree'
	root     *os.Root             // fs requests open files through it

	proc *proc.Attached
	conn *sdk.ClientSideConnection
	sid  sdk.SessionId

	endOnce sync.Once
	exit    proc.Execution // how the process ended, once endOnce ran

	// cancelling is set once session/cancel was sent: permission requests
	// are then answered "cancelled", as the protocol asks.
	cancelling atomic.Bool

	mu         sync.Mutex
	msg        message                     // the current turn's final message so far
	agentBytes int                         // every byte of agent text, for the usage estimate
	calls      map[sdk.ToolCallId]toolCall // what tool_call notifications said
	cost       *sdk.Cost                   // the last usage_update's cumulative cost
	refusals   int                         // permission requests refused
	refused    []string                    // the first shownRefusals of them, as sentences
	noted      []string                    // other notes for the result
	usage      agentapi.Usage              // summed over the turns that reported it
	unreported bool                        // a turn reported no usage
	promptSent int                         // bytes of prompt text sent, for the estimate
	terms      map[string]*terminal        // the open terminals, by id
	termSeq    int                         // for terminal ids
	ended      bool                        // closeTerminals ran: no more terminals
	termWG     sync.WaitGroup              // one per terminal's goroutine
	closed     bool                        // end ran: request handlers answer at once
	handlers   sync.WaitGroup              // request handlers running, see handling
	tmp        string                      // the child's temp folder for terminals, once made
	options    []sdk.SessionConfigOption   // the session's config options, as last reported
}

// enter gives the child its place to work: the provider's workspace, or a
// fresh worktree of it under isolation: 'worktree'.
func (c *child) enter(ctx context.Context) error {
	c.ws = c.p.ws
	if c.req.Isolation == IsolationWorktree {
		wt, err := c.ws.AddWorktree(ctx, c.req.AgentID)
		if err != nil {
			return err // AGENT_START with a sentence: not a repository, git failed
		}
		c.worktree, c.ws = wt, wt.Workspace()
	}
	root, err := os.OpenRoot(c.ws.Root())
	if err != nil {
		c.leave(context.WithoutCancel(ctx))
		return wferr.Wrap(wferr.AgentStart, err, "the %s provider cannot open the workspace %s: %v", c.p.name, c.ws.Root(), err)
	}
	c.root = root
	return nil
}

// leave closes what enter opened and ends the child's worktree: an
// unchanged one is removed, one with changes or commits is kept and
// returned for the run to report. It runs after the agent's process is
// gone, also when the child was cancelled. A worktree that cannot be ended
// is kept, with a note saying why.
func (c *child) leave(ctx context.Context) *agentapi.Worktree {
	if c.root != nil {
		_ = c.root.Close()
		c.root = nil
	}
	if c.tmp != "" {
		_ = os.RemoveAll(c.tmp)
	}
	wt := c.worktree
	if wt == nil {
		return nil
	}
	c.worktree = nil
	kept, err := wt.Finish(ctx)
	if err != nil {
		c.note("the worktree %s could not be cleaned up (%v); it is kept", wt.Path(), err)
		return &agentapi.Worktree{Path: wt.Path(), Branch: wt.Branch()}
	}
	return kept
}

// run starts the agent, holds the conversation and ends the process.
func (c *child) run(ctx context.Context) (agentapi.Result, error) {
	if err := c.start(ctx); err != nil {
		c.end(ctx, true)
		if ctx.Err() != nil {
			return c.stopped(ctx, ""), nil
		}
		return agentapi.Result{}, err
	}
	res, err := c.converse(ctx)
	c.end(ctx, ctx.Err() != nil)
	if err != nil {
		return agentapi.Result{}, err
	}
	res.Usage = c.finalUsage()
	return res, nil
}

// start starts the agent's process and opens the session: initialize, then
// session/new with the child's root as cwd, then the model and effort.
func (c *child) start(ctx context.Context) error {
	a := &c.p.agent
	env := proc.Environ(a.PassEnv, mergeEnv(c.ws.Env(), a.Env))
	path, err := proc.LookPath(a.Command, "", env)
	if err != nil {
		return c.notFound(err)
	}
	job := proc.Job{Path: path, Args: append([]string{a.Command}, a.Args...), Env: env, Dir: c.ws.Root(), Started: c.p.started}
	if a.Sandbox {
		if job.Path, job.Args, err = c.ws.Confine(job.Path, job.Args, ""); err != nil {
			return wferr.Wrap(wferr.AgentStart, err, "the %s provider's agent asks for the sandbox, which cannot run here: %v", c.p.name, err)
		}
		job.SysProcAttr = c.ws.SysProcAttr()
	}
	at, err := proc.Attach(job)
	if err != nil {
		return wferr.Wrap(wferr.AgentStart, err, "the %s provider cannot start %q: %v; fix \"command\" in the agent's configuration", c.p.name, a.Command, err)
	}
	c.proc = at
	// The SDK logs to slog's default logger (wfrun's stderr) unless told
	// otherwise, and starts reading in NewClientSideConnection, before
	// SetLogger can run: the gate holds its reader back until then.
	g := &gate{r: at.Stdout, open: make(chan struct{})}
	c.conn = sdk.NewClientSideConnection(&client{c: c}, at.Stdin, g)
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	close(g.open)

	sctx, cancel := context.WithTimeoutCause(ctx, StartTimeout, errStartTimeout)
	defer cancel()
	init, err := c.conn.Initialize(sctx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{
			Fs:       sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: c.ws.Mode().CanWrite()},
			Terminal: terminalsOffered(c.ws),
		},
		ClientInfo: &sdk.Implementation{Name: "wfrun", Version: version()},
	})
	if err != nil {
		return c.startError(sctx, "initialize", err)
	}
	if init.ProtocolVersion != sdk.ProtocolVersionNumber {
		return wferr.New(wferr.AgentStart, "the ACP agent %s speaks protocol version %d and wfrun speaks version %d: use a version of the agent (or of its ACP adapter) that speaks version %d",
			c.p.name, init.ProtocolVersion, sdk.ProtocolVersionNumber, sdk.ProtocolVersionNumber)
	}
	sess, err := c.conn.NewSession(sctx, sdk.NewSessionRequest{Cwd: c.ws.Root(), McpServers: []sdk.McpServer{}})
	if err != nil {
		return c.startError(sctx, "session/new", err)
	}
	c.mu.Lock()
	c.sid, c.options = sess.SessionId, sess.ConfigOptions
	c.mu.Unlock()
	if err := c.configure(sctx); err != nil {
		if ctx.Err() == nil && sctx.Err() != nil {
			return c.startError(sctx, "session/set_config_option", err)
		}
		return err
	}
	return nil
}

// gate is a reader that blocks until open is closed.
type gate struct {
	r    io.Reader
	open chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// version is wfrun's module version as the build recorded it, for the
// agent's logs; "devel" when it is not known.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == module && bi.Main.Version != "" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == module {
				return d.Version
			}
		}
	}
	return "devel"
}

const module = "github.com/wfrun/wfrun"

// notFound is the AGENT_START error for a program that cannot be found or
// run.
func (c *child) notFound(err error) error {
	cmd := c.p.agent.Command
	if errors.Is(err, fs.ErrNotExist) {
		where := "in PATH"
		if strings.Contains(cmd, "/") {
			where = "(no such file)"
		}
		return wferr.Wrap(wferr.AgentStart, err,
			"the %s provider cannot find the agent's program %q %s: install it, or fix \"command\" in the agent's configuration (--acp-agent or --acp-config)", c.p.name, cmd, where)
	}
	return wferr.Wrap(wferr.AgentStart, err,
		"the %s provider cannot run the agent's program %q (%v): make it an executable file, or fix \"command\" in the agent's configuration", c.p.name, cmd, err)
}

// startError turns a failed start request into an AGENT_START error that
// says what went wrong, unless the child's own context ended (the caller
// checks that first and reports the child as stopped).
func (c *child) startError(sctx context.Context, method string, err error) error {
	if context.Cause(sctx) == errStartTimeout {
		return wferr.Wrap(wferr.AgentStart, err,
			"the ACP agent %s did not answer %s within %s: check that %q speaks the Agent Client Protocol on its stdin and stdout (Claude Code, Codex and Gemini CLI need their ACP adapters or flags)",
			c.p.name, method, StartTimeout, c.p.agent.Command)
	}
	var re *sdk.RequestError
	answered := errors.As(err, &re) && re.Code != codeInternalError
	if c.gone(!answered) {
		ex := c.end(sctx, false)
		return wferr.Wrap(wferr.AgentStart, err,
			"the ACP agent %s closed the connection before it answered %s (%s)%s: check that %q speaks the Agent Client Protocol on its stdin and stdout",
			c.p.name, method, exitText(ex), ex.StderrNote(), c.p.agent.Command)
	}
	if answered && re.Code == codeAuthRequired {
		return wferr.Wrap(wferr.AgentStart, err,
			"the ACP agent %s needs authentication before it opens a session (%s): sign in with the agent's own command line first, or give it its API key with \"env\" or \"passEnv\" in --acp-config",
			c.p.name, rpcText(err))
	}
	return wferr.Wrap(wferr.AgentStart, err, "the ACP agent %s refused %s: %s", c.p.name, method, rpcText(err))
}

// JSON-RPC error codes: ACP's "authenticate first", and "internal error",
// which the SDK also returns for a request it could not send.
const (
	codeAuthRequired  = -32000
	codeInternalError = -32603
)

// gone reports whether the agent's process has exited or closed the
// connection. A request that failed without an answer from the agent
// (wait) may have lost the race with the agent's exit, so the agent gets a
// moment to be seen gone.
func (c *child) gone(wait bool) bool {
	if wait {
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-c.conn.Done():
		case <-c.proc.Exited():
		case <-t.C:
		}
	}
	select {
	case <-c.conn.Done():
		return true
	case <-c.proc.Exited():
		return true
	default:
		return false
	}
}

// end ends the agent's process once and returns how it ended. With kill
// (the child was cancelled, or its start failed) the group is killed at
// once; otherwise stdin is closed, which tells an ACP agent to exit, and
// the group gets KillGrace to do so before SIGTERM (and SIGKILL after
// another KillGrace); ctx ending meanwhile kills it at once. It returns
// after the process is reaped, the connection has closed and every request
// handler of the connection has returned, so that nothing of the child
// outlives Run.
func (c *child) end(ctx context.Context, kill bool) proc.Execution {
	c.endOnce.Do(func() {
		c.closeTerminals()
		if c.proc != nil {
			c.stop(ctx, kill)
			c.exit = c.proc.Wait(c.conn.Done())
			<-c.conn.Done() // Wait closed the pipe, so the SDK's reader has ended
		}
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.handlers.Wait()
	})
	return c.exit
}

// stop ends the agent's process group, as end describes.
func (c *child) stop(ctx context.Context, kill bool) {
	if kill || ctx.Err() != nil {
		c.proc.Kill()
		return
	}
	_ = c.proc.Stdin.Close()
	t := time.NewTimer(c.grace)
	defer t.Stop()
	select {
	case <-c.proc.Exited():
	case <-ctx.Done():
		c.proc.Kill()
	case <-t.C:
		stopped := make(chan struct{})
		go func() {
			c.proc.Stop(c.grace)
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-ctx.Done():
			c.proc.Kill()
			<-stopped
		}
	}
}

// handling registers a request handler of the connection that is about to
// run, so that end can wait for it; false once the child has ended (the
// handler must then answer at once without touching the child's files).
// The caller defers handled.
func (c *child) handling() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.handlers.Add(1)
	return true
}

func (c *child) handled() { c.handlers.Done() }

// stopped is the result of a child whose context ended first: cancelled,
// or timed out when a deadline passed. how says what the agent did.
func (c *child) stopped(ctx context.Context, how string) agentapi.Result {
	res := agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
		Error: "the child was cancelled before the agent finished" + how}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Status, res.Failure = agentapi.StatusTimedOut, agentapi.FailureTimeout
		res.Error = "the child's deadline passed before the agent finished" + how
	}
	if c.proc != nil {
		res.Usage = c.finalUsage()
	}
	return res
}

// note adds a remark to the result.
func (c *child) note(format string, args ...any) {
	c.mu.Lock()
	c.noted = append(c.noted, fmt.Sprintf(format, args...))
	c.mu.Unlock()
}

// shownRefusals is how many refused permission requests a note quotes.
const shownRefusals = 3

// notes returns the child's remarks: the permission requests it refused,
// then the others.
func (c *child) notes() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	if n := c.refusals; n > 0 {
		s := fmt.Sprintf("wfrun refused %d permission %s of the agent: %s", n, human.Noun(n, "request", "requests"), strings.Join(c.refused, "; "))
		if more := n - len(c.refused); more > 0 {
			s += fmt.Sprintf("; and %d more", more)
		}
		out = append(out, s)
	}
	return strings.Join(append(out, c.noted...), "; ")
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// mergeEnv returns the workspace's variables with the agent's own on top.
func mergeEnv(ws, agent map[string]string) map[string]string {
	out := make(map[string]string, len(ws)+len(agent))
	for k, v := range ws {
		out[k] = v
	}
	for k, v := range agent {
		out[k] = v
	}
	return out
}
