package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
)

// ProtocolVersions returns the MCP versions the server speaks: those with
// sessions, since a session owns its runs.
func ProtocolVersions() []string { return []string{"2025-11-25", "2025-06-18", "2025-03-26"} }

// resultTemplate is the URI template of a finished run's full result.
const resultTemplate = "wfrun://runs/{runId}/result"

// Options configures a Server. The zero value is usable.
type Options struct {
	// Version is the server's version in the MCP handshake ("dev" if empty).
	Version string
	// Personas are listed in the tools' descriptions (see tool.Options).
	Personas []tool.Persona
	// MaxResultChars caps the value shown in a result's text (see tool.Options).
	MaxResultChars int
	// OnEvent, if set, receives every event of every run of every session.
	OnEvent func(engine.Event)
	// Owner, when set, owns the runs of every session, so that they stay
	// visible to a later session (workflow_list, workflow_status and
	// resumeFromRunId after the server restarted, with a run ledger).
	// Sessions sharing an owner see each other's runs; a session that ends
	// still cancels only its own. "" gives each session an owner of its own.
	Owner string
	// Subagents, if set, adds the continuable sub-agent tools (see
	// tool.Options.Subagents), the resources wfrun://subagents/<childId>,
	// and the notifications of their reports (subagents.go).
	Subagents *subagent.Manager
	// Remote, if set, runs the workflow tool's runs elsewhere (see
	// tool.Options.Remote): wfrun mcp --temporal runs them on Temporal.
	Remote func(ctx context.Context, req engine.WorkflowStartRequest, onEvent func(engine.Event)) (engine.WorkflowResult, error)
	// RemoteRuns, with Remote, holds the background runs and answers
	// the background tools (tool.Options.RemoteRuns).
	RemoteRuns tool.RemoteRuns
}

// Server is an MCP server of wfrun's tools for one engine. It is safe for
// concurrent use and serves any number of sessions.
type Server struct {
	eng  *engine.Engine
	opts Options
	mcp  *mcp.Server

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
	ended    sync.WaitGroup // the goroutines waiting for sessions to end
}

// session is one MCP session's tools; done closes once the session has
// ended and its runs were cancelled.
type session struct {
	set  *tool.Set
	done chan struct{}
}

// New returns a server of eng's tools.
func New(eng *engine.Engine, opts Options) *Server {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{eng: eng, opts: opts, sessions: map[*mcp.ServerSession]*session{}}
	so := &mcp.ServerOptions{
		Instructions: "wfrun runs JavaScript workflows that hand tasks to sub-agents. Use the workflow tool for many tasks " +
			"or stages that feed each other (its description is the authoring manual), and the agent tool for one delegated task.",
		SupportedProtocolVersions: ProtocolVersions(),
		Capabilities:              &mcp.ServerCapabilities{},
	}
	if opts.Subagents != nil {
		so.Instructions += " The subagent_* tools start sub-agents that work in the background and take follow-ups."
		s.subagentOptions(so)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "wfrun", Title: "wfrun workflows", Version: opts.Version}, so)
	// The definitions do not depend on the owner: take them from a set
	// that never runs anything.
	for _, def := range tool.New(eng, s.toolOptions("")).Definitions() {
		s.mcp.AddTool(&mcp.Tool{Name: string(def.Name), Description: def.Description, InputSchema: def.InputSchema, OutputSchema: outputSchema},
			s.handler(def.Name))
	}
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "run-result",
		Title:       "The full result of a workflow run",
		Description: "The WorkflowResult JSON of a finished run of this session, with its whole value; a result too long for the tool's text names this resource.",
		MIMEType:    "application/json",
		URITemplate: resultTemplate,
	}, s.readResult)
	if opts.Subagents != nil {
		s.addSubagents()
	}
	return s
}

// MCP returns the SDK server, to connect it to any transport
// (mcp.StdioTransport, mcp.NewInMemoryTransports, …).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session over t until the client disconnects or ctx is
// done, and then waits until that session's runs have been told to stop.
// It returns ctx's error when ctx ended the session.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = ss.Close() })
	defer stop()
	err = ss.Wait()
	s.mu.Lock()
	sess := s.sessions[ss]
	s.mu.Unlock()
	if sess != nil {
		<-sess.done
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Wait waits until every session that has ended has had its runs
// cancelled (the goroutines the server starts have returned).
func (s *Server) Wait() { s.ended.Wait() }

func (s *Server) toolOptions(owner string) tool.Options {
	return tool.Options{Owner: owner, Personas: s.opts.Personas, MaxResultChars: s.opts.MaxResultChars, OnEvent: s.opts.OnEvent,
		Subagents: s.opts.Subagents, Remote: s.opts.Remote, RemoteRuns: s.opts.RemoteRuns}
}

// set returns the session's tools, creating them (and the session's owner)
// on first use.
func (s *Server) set(ss *mcp.ServerSession) *tool.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[ss]; ok {
		return sess.set
	}
	owner := s.opts.Owner
	if owner == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		owner = "mcp-" + hex.EncodeToString(b[:])
	}
	sess := &session{set: tool.New(s.eng, s.toolOptions(owner)), done: make(chan struct{})}
	s.sessions[ss] = sess
	s.ended.Add(1)
	go func() {
		defer s.ended.Done()
		_ = ss.Wait()
		sess.set.CancelAll("the MCP session that started the run ended")
		if s.opts.Owner == "" {
			// Nobody can speak for this session's owner again.
			sess.set.CloseSubagents(context.Background(), "the MCP session that started it ended")
		}
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
		close(sess.done)
	}()
	return sess.set
}

// handler serves one tool.
func (s *Server) handler(name tool.Name) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		set := s.set(req.Session)
		var progress func(tool.Progress)
		if token := req.Params.GetProgressToken(); token != nil {
			progress = func(p tool.Progress) {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(p.Step), Message: p.Message(),
				})
			}
		}
		res := set.CallWithProgress(ctx, name, req.Params.Arguments, progress)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}, IsError: res.IsError,
			StructuredContent: newStructured(res.Text, res.IsError, res.Structured)}, nil
	}
}

// readResult serves wfrun://runs/<runId>/result to the session that owns
// the run.
func (s *Server) readResult(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "wfrun://runs/")
	if ok {
		id, ok = strings.CutSuffix(id, "/result")
	}
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	res, done := s.set(req.Session).Result(id)
	if !done {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}
