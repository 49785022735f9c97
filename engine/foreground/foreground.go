package foreground

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/progress"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/interrupt"
)

// Terminal is the person's side of a foreground command.
type Terminal struct {
	// Stderr gets the progress line and `--events -`. The line is drawn
	// only when it is a terminal (progress.IsTerminal).
	Stderr io.Writer
	// Signals delivers SIGINT and SIGTERM; nil means none will come.
	Signals <-chan os.Signal
	// Notify shows a person one line; nil drops it.
	Notify func(string)
}

func (t Terminal) notify(format string, args ...any) {
	if t.Notify != nil {
		t.Notify(fmt.Sprintf(format, args...))
	}
}

// Wait waits for done while t's signals come (interrupt.Wait): the first
// calls stop and the wait goes on; a second gives up waiting, with the
// notice "second SIGINT: exiting without waiting for " what. The progress
// line prog (nil for none) is stopped when the wait ends, before that
// notice.
func Wait[T any](t Terminal, prog *progress.Line, what string, done <-chan T, stop func(os.Signal)) interrupt.Outcome[T] {
	out := interrupt.Wait(done, t.Signals, stop)
	prog.Stop()
	if out.Abandoned != nil {
		t.notify("second %s: exiting without waiting for %s", interrupt.Name(out.Abandoned), what)
	}
	return out
}

// Output is where a command's events go besides its result: the event log
// of --events and the progress line.
type Output struct {
	term     Terminal
	log      *setup.EventLog // nil without --events
	toStderr bool            // --events -
	closeLog func()
}

// OpenOutput opens the event log of events: none for "", one on
// t.Stderr for "-", else a file created at that path; an
// *setup.InputError when it cannot be created.
func OpenOutput(events string, t Terminal) (*Output, error) {
	log, closeLog, err := setup.OpenEventLog(events, t.Stderr)
	if err != nil {
		return nil, err
	}
	return &Output{term: t, log: log, toStderr: events == "-", closeLog: closeLog}, nil
}

// Sink is the event log's sink (engine.Config.Events), nil without one.
func (o *Output) Sink() func(engine.Event) {
	if o.log == nil {
		return nil
	}
	return o.log.Record
}

// Progress starts the progress line on the terminal's Stderr when that is
// a terminal which the event log does not write to; otherwise it returns
// nil, on which every method does nothing. The caller stops it.
func (o *Output) Progress() *progress.Line {
	if o.toStderr || !progress.IsTerminal(o.term.Stderr) {
		return nil
	}
	return progress.Start(o.term.Stderr)
}

// Close closes the event log's file, with a notice when a write to it
// was lost.
func (o *Output) Close() {
	if o.log != nil && o.log.Err() != nil {
		o.term.notify("--events: %v", o.log.Err())
	}
	o.closeLog()
}

// Options say how Open builds the engine.
type Options struct {
	// Events is the event log's path, as OpenOutput takes it.
	Events string
	// Announce says which provider a request that names none gets
	// (setup.Build.Announce).
	Announce bool
}

// Session is the engine of a foreground command with its output.
type Session struct {
	*Output
	// Engine runs the command's runs; Close closes it.
	Engine *engine.Engine
	opened *setup.Engine
	subs   *subagent.Manager
}

// Open opens the output of o.Events and builds the engine of in
// (setup.Open, with the MCP servers and the tracer), its notices and a
// rebuilt ledger's (listing.Rebuilt) shown through t.Notify, every event
// going to the event log. An event log that cannot be created is an
// *setup.InputError; the engine's errors never are. Nothing is left open
// when it fails.
func Open(ctx context.Context, in *setup.Invocation, t Terminal, o Options) (*Session, error) {
	out, err := OpenOutput(o.Events, t)
	if err != nil {
		return nil, err
	}
	eng, err := setup.Open(ctx, in, setup.Build{Announce: o.Announce, WithTools: true, Notify: t.Notify, Events: out.Sink()})
	if err != nil {
		out.closeLog()
		return nil, err
	}
	if msg := listing.Rebuilt(eng.Engine); msg != "" {
		t.notify("%s", msg)
	}
	return &Session{Output: out, Engine: eng.Engine, opened: eng}, nil
}

// Subagents starts the continuable sub-agents of the engine
// (tool.NewSubagents), which Close ends before the engine they live in.
// It is called at most once.
func (s *Session) Subagents() (*subagent.Manager, error) {
	subs, err := tool.NewSubagents(s.Engine)
	s.subs = subs
	return subs, err
}

// Followed is how Follow ended.
type Followed struct {
	// Result is the run's result, a FailedResult when it did not start;
	// empty when Follow gave up waiting (Abandoned).
	Result engine.WorkflowResult
	// Interrupted says a signal came and cancelled the run.
	Interrupted bool
	// Abandoned is the second signal, after which Follow stopped waiting
	// for the run; nil when it waited for the result.
	Abandoned os.Signal
}

// Follow starts a run with start, which must give the run onEvent as its
// OnEvent (nil or not), and waits for it with the progress line drawn. The
// first signal cancels the run ("interrupted by SIGINT") and waits on; a
// second gives up waiting, with a notice.
func (s *Session) Follow(start func(onEvent func(engine.Event)) (*engine.Run, error)) Followed {
	prog := s.Progress()
	defer prog.Stop()
	var onEvent func(engine.Event)
	if prog != nil {
		onEvent = prog.Record
	}
	run, err := start(onEvent)
	if err != nil {
		return Followed{Result: engine.FailedResult("", err)}
	}
	out := Wait(s.term, prog, "the run", run.Done(), func(sig os.Signal) { run.Cancel("interrupted by " + interrupt.Name(sig)) })
	if out.Abandoned != nil {
		return Followed{Interrupted: true, Abandoned: out.Abandoned}
	}
	return Followed{Result: run.Wait(), Interrupted: out.Interrupted != nil}
}

// Close closes what Open opened, each failure a notice: the sub-agents
// (their running turns end and each child is unloaded, ready for the next
// process), then the engine whose ledger they live in (setup.CloseEngine),
// then the providers and the tracer, sending the spans still buffered, and
// last the event log.
func (s *Session) Close() {
	if s.subs != nil {
		if err := setup.CloseWithin("the sub-agents", s.subs.Close); err != nil {
			s.term.notify("%v", err)
		}
	}
	if err := setup.CloseEngine(s.Engine); err != nil {
		s.term.notify("%v", err)
	}
	s.Abandon()
}

// Abandon stops the providers and the tracer and closes the event log,
// leaving the engine and its runs: after a second signal, when the process
// exits without waiting for them.
func (s *Session) Abandon() {
	s.opened.Stop()
	s.Output.Close()
}
