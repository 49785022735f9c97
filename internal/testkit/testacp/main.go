// Command testacp is a small ACP agent for wfrun's tests, built with the
// same Go SDK as the acp provider (github.com/coder/acp-go-sdk). It speaks
// ACP over stdin/stdout until stdin closes, and does what the first prompt
// of a session tells it, one directive a line:
//
//	@say TEXT            stream TEXT as agent_message_chunks (in small pieces; \n is a newline)
//	@tool KIND PATH      report a tool call of that kind on PATH ("-": no location)
//	@permit KIND PATH    report a tool call and ask session/request_permission for it;
//	                     record the kind of the option chosen ("cancelled" if none)
//	@read PATH [L N]     fs/read_text_file (from line L, N lines); record the content or the error
//	@write PATH TEXT     fs/write_text_file; record "ok" or the error
//	@caps                record the client's capabilities
//	@cwd                 record the session's working directory
//	@model               record the session's model option
//	@echo                record this turn's prompt text
//	@report              say everything recorded so far in this turn, joined by "; "
//	@usage IN OUT [C]    end the turn with this usage (input, output, cached tokens)
//	@cost USD            send a usage_update with this cumulative cost
//	@stop REASON         end the turn with this stop reason (default end_turn)
//	@wait FILE           write FILE.waiting, wait for session/cancel, write "cancelled" to
//	                     FILE, and end the turn with stop reason cancelled
//	@hang FILE           write FILE.waiting, ignore SIGTERM and session/cancel, never answer
//	@crash TEXT          write TEXT to stderr and exit with status 3
//	@exec CMD ARG…       terminal/create, wait_for_exit, output, release; record the exit code and output
//
// A line that starts with [N] runs only on the session's N-th prompt (the
// first is 1, and lines without the prefix belong to it); other lines are
// ignored, so that text the client adds to a prompt does no harm.
//
// Flags:
//
//	-auth            refuse session/new until authenticated (auth_required)
//	-garbage         write a line that is not JSON-RPC and exit with status 2
//	-models A,B      offer a "model" config option with these values (the first is current)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
)

func main() {
	auth := flag.Bool("auth", false, "refuse session/new with auth_required")
	garbage := flag.Bool("garbage", false, "write a line that is not JSON-RPC and exit 2")
	models := flag.String("models", "", "offer a model config option with these comma-separated values")
	flag.Parse()
	if *garbage {
		fmt.Println("this is not an ACP agent")
		os.Exit(2)
	}
	a := &agent{auth: *auth, sessions: map[acp.SessionId]*session{}}
	if *models != "" {
		a.models = strings.Split(*models, ",")
	}
	conn := acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	a.conn = conn
	<-conn.Done()
}

type agent struct {
	conn   *acp.AgentSideConnection
	auth   bool
	models []string

	mu       sync.Mutex
	caps     acp.ClientCapabilities
	sessions map[acp.SessionId]*session
	next     int
}

type session struct {
	id     acp.SessionId
	cwd    string
	script string // the first prompt's text
	turns  int
	model  string

	mu        sync.Mutex
	cancelled bool
}

func (a *agent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo: &acp.Implementation{Name: "testacp", Version: "v1"}}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if a.auth {
		return acp.NewSessionResponse{}, acp.NewAuthRequired(map[string]any{"hint": "run testacp login"})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	s := &session{id: acp.SessionId(fmt.Sprintf("sess_%d", a.next)), cwd: p.Cwd}
	resp := acp.NewSessionResponse{SessionId: s.id}
	if len(a.models) > 0 {
		s.model = a.models[0]
		resp.ConfigOptions = []acp.SessionConfigOption{a.modelOption(s.model)}
	}
	a.sessions[s.id] = s
	return resp, nil
}

func (a *agent) modelOption(current string) acp.SessionConfigOption {
	cat := acp.SessionConfigOptionCategoryModel
	var opts acp.SessionConfigSelectOptionsUngrouped
	for _, m := range a.models {
		opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m), Name: strings.ToUpper(m)})
	}
	return acp.SessionConfigOption{Select: &acp.SessionConfigOptionSelect{
		Id: "model", Name: "Model", Category: &cat, CurrentValue: acp.SessionConfigValueId(current),
		Options: acp.SessionConfigSelectOptions{Ungrouped: &opts}, Type: "select"}}
}

func (a *agent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil || p.ValueId.ConfigId != "model" || len(a.models) == 0 {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown config option"})
	}
	s := a.session(p.ValueId.SessionId)
	if s == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	s.mu.Lock()
	s.model = string(p.ValueId.Value)
	s.mu.Unlock()
	return acp.SetSessionConfigOptionResponse{ConfigOptions: []acp.SessionConfigOption{a.modelOption(string(p.ValueId.Value))}}, nil
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) Cancel(_ context.Context, p acp.CancelNotification) error {
	if s := a.session(p.SessionId); s != nil {
		s.mu.Lock()
		s.cancelled = true
		s.mu.Unlock()
	}
	return nil
}

func (a *agent) session(id acp.SessionId) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// turn is one prompt being answered.
type turn struct {
	a       *agent
	s       *session
	ctx     context.Context
	prompt  string
	records []string
	calls   int
	resp    acp.PromptResponse
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := a.session(p.SessionId)
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	s.mu.Lock()
	s.turns++
	n := s.turns
	if n == 1 {
		s.script = text.String()
	}
	script := s.script
	s.mu.Unlock()

	t := &turn{a: a, s: s, ctx: ctx, prompt: text.String(), resp: acp.PromptResponse{StopReason: acp.StopReasonEndTurn}}
	ran := false
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		want := 1
		if rest, ok := strings.CutPrefix(line, "["); ok {
			num, after, found := strings.Cut(rest, "]")
			k, err := strconv.Atoi(num)
			if !found || err != nil {
				continue
			}
			want, line = k, strings.TrimSpace(after)
		}
		if want != n || !strings.HasPrefix(line, "@") {
			continue
		}
		ran = true
		verb, args, _ := strings.Cut(line[1:], " ")
		if done := t.do(verb, strings.TrimSpace(args)); done {
			break
		}
	}
	if !ran {
		t.say(fmt.Sprintf("no script for turn %d", n))
	}
	return t.resp, nil
}

// do runs one directive; true ends the turn.
func (t *turn) do(verb, args string) bool {
	fields := strings.Fields(args)
	field := func(i int) string {
		if i < len(fields) {
			return fields[i]
		}
		return ""
	}
	switch verb {
	case "say":
		t.say(strings.ReplaceAll(args, `\n`, "\n"))
	case "tool":
		t.toolCall(field(0), field(1))
	case "permit":
		t.record(fmt.Sprintf("permit %s %s: %s", field(0), field(1), t.permit(field(0), field(1))))
	case "read":
		req := acp.ReadTextFileRequest{SessionId: t.s.id, Path: field(0)}
		if l, err := strconv.Atoi(field(1)); err == nil {
			req.Line = &l
		}
		if n, err := strconv.Atoi(field(2)); err == nil {
			req.Limit = &n
		}
		resp, err := t.a.conn.ReadTextFile(t.ctx, req)
		if err != nil {
			t.record(fmt.Sprintf("read %s: error: %s", field(0), message(err)))
		} else {
			t.record(fmt.Sprintf("read %s: %s", field(0), resp.Content))
		}
	case "write":
		path, text, _ := strings.Cut(args, " ")
		_, err := t.a.conn.WriteTextFile(t.ctx, acp.WriteTextFileRequest{SessionId: t.s.id, Path: path, Content: strings.ReplaceAll(text, `\n`, "\n")})
		if err != nil {
			t.record(fmt.Sprintf("write %s: error: %s", path, message(err)))
		} else {
			t.record(fmt.Sprintf("write %s: ok", path))
		}
	case "caps":
		t.a.mu.Lock()
		c := t.a.caps
		t.a.mu.Unlock()
		t.record(fmt.Sprintf("fs.read=%v fs.write=%v terminal=%v", c.Fs.ReadTextFile, c.Fs.WriteTextFile, c.Terminal))
	case "cwd":
		t.record("cwd " + t.s.cwd)
	case "model":
		t.s.mu.Lock()
		m := t.s.model
		t.s.mu.Unlock()
		t.record("model " + m)
	case "echo":
		t.record("prompt " + t.prompt)
	case "report":
		t.say(strings.Join(t.records, "; "))
		t.records = nil
	case "usage":
		in, _ := strconv.Atoi(field(0))
		out, _ := strconv.Atoi(field(1))
		u := &acp.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
		if c, err := strconv.Atoi(field(2)); err == nil {
			u.CachedReadTokens = &c
		}
		t.resp.Usage = u
	case "cost":
		usd, _ := strconv.ParseFloat(field(0), 64)
		_ = t.a.conn.SessionUpdate(t.ctx, acp.SessionNotification{SessionId: t.s.id, Update: acp.SessionUpdate{
			UsageUpdate: &acp.SessionUsageUpdate{Cost: &acp.Cost{Amount: usd, Currency: "USD"}, Size: 1000, Used: 10}}})
	case "stop":
		t.resp.StopReason = acp.StopReason(field(0))
	case "wait":
		_ = os.WriteFile(field(0)+".waiting", nil, 0o644)
		<-t.ctx.Done()
		t.s.mu.Lock()
		cancelled := t.s.cancelled
		t.s.mu.Unlock()
		if cancelled {
			_ = os.WriteFile(field(0), []byte("cancelled"), 0o644)
		}
		t.resp.StopReason = acp.StopReasonCancelled
		return true
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		_ = os.WriteFile(field(0)+".waiting", nil, 0o644)
		select {}
	case "crash":
		fmt.Fprintln(os.Stderr, args)
		os.Exit(3)
	case "exec":
		t.record(t.exec(fields))
	case "touch":
		// A write by the agent's own process, not through the client: what
		// the sandbox of an agent started with "sandbox": true bounds.
		if err := os.WriteFile(field(0), nil, 0o644); err != nil {
			t.record("touch " + field(0) + ": error")
		} else {
			t.record("touch " + field(0) + ": ok")
		}
	default:
		t.record("unknown directive @" + verb)
	}
	return false
}

// say streams text in pieces of a few bytes, as real agents do.
func (t *turn) say(text string) {
	for len(text) > 0 {
		n := min(len(text), 5)
		_ = t.a.conn.SessionUpdate(t.ctx, acp.SessionNotification{SessionId: t.s.id, Update: acp.UpdateAgentMessageText(text[:n])})
		text = text[n:]
	}
}

func (t *turn) record(s string) { t.records = append(t.records, s) }

func (t *turn) toolCall(kind, path string) acp.ToolCallId {
	t.calls++
	id := acp.ToolCallId(fmt.Sprintf("call_%d_%d", t.s.turns, t.calls))
	opts := []acp.ToolCallStartOpt{acp.WithStartKind(acp.ToolKind(kind)), acp.WithStartStatus(acp.ToolCallStatusPending)}
	if path != "-" && path != "" {
		opts = append(opts, acp.WithStartLocations([]acp.ToolCallLocation{{Path: path}}))
	}
	_ = t.a.conn.SessionUpdate(t.ctx, acp.SessionNotification{SessionId: t.s.id, Update: acp.StartToolCall(id, kind+" "+path, opts...)})
	return id
}

func (t *turn) permit(kind, path string) string {
	id := t.toolCall(kind, path)
	k := acp.ToolKind(kind)
	title := kind + " " + path
	call := acp.ToolCallUpdate{ToolCallId: id, Kind: &k, Title: &title}
	if path != "-" && path != "" {
		call.Locations = []acp.ToolCallLocation{{Path: path}}
	}
	options := []acp.PermissionOption{
		{OptionId: "yes", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: "always", Name: "Always allow", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		{OptionId: "never", Name: "Always reject", Kind: acp.PermissionOptionKindRejectAlways},
	}
	resp, err := t.a.conn.RequestPermission(t.ctx, acp.RequestPermissionRequest{SessionId: t.s.id, ToolCall: call, Options: options})
	switch {
	case err != nil:
		return "error: " + message(err)
	case resp.Outcome.Cancelled != nil:
		return "cancelled"
	case resp.Outcome.Selected != nil:
		for _, o := range options {
			if o.OptionId == resp.Outcome.Selected.OptionId {
				return string(o.Kind)
			}
		}
		return "unknown option " + string(resp.Outcome.Selected.OptionId)
	}
	return "no outcome"
}

func (t *turn) exec(argv []string) string {
	if len(argv) == 0 {
		return "exec: no command"
	}
	c := t.a.conn
	created, err := c.CreateTerminal(t.ctx, acp.CreateTerminalRequest{SessionId: t.s.id, Command: argv[0], Args: argv[1:]})
	if err != nil {
		return "exec " + argv[0] + ": error: " + message(err)
	}
	id := created.TerminalId
	defer c.ReleaseTerminal(context.WithoutCancel(t.ctx), acp.ReleaseTerminalRequest{SessionId: t.s.id, TerminalId: id})
	exit, err := c.WaitForTerminalExit(t.ctx, acp.WaitForTerminalExitRequest{SessionId: t.s.id, TerminalId: id})
	if err != nil {
		return "exec " + argv[0] + ": wait: " + message(err)
	}
	out, err := c.TerminalOutput(t.ctx, acp.TerminalOutputRequest{SessionId: t.s.id, TerminalId: id})
	if err != nil {
		return "exec " + argv[0] + ": output: " + message(err)
	}
	code := "none"
	if exit.ExitCode != nil {
		code = strconv.Itoa(*exit.ExitCode)
	}
	return fmt.Sprintf("exec %s: exit %s: %s", argv[0], code, strings.TrimSpace(out.Output))
}

// message is the text of a JSON-RPC error as a model would see it.
func message(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re.Message
	}
	return err.Error()
}
