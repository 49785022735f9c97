package engine

import (
	"flag"
	"fmt"
	"time"

	fv "github.com/wfrun/wfrun/internal/flagvalue"
)

// LimitFlags are wfrun's flags that bound a run, as given; a zero field
// was not given. Bind defines them on a flag set, with wfrun's help, so
// that a program with a flag set takes the same limits; Apply puts the
// given ones into a request.
type LimitFlags struct {
	MaxAgents, Concurrency                int           // --max-agents, --concurrency
	BudgetTokens, MaxMemory, MaxRunFolder int64         // --budget-tokens, --max-memory, --max-run-folder
	Timeout, AgentTimeout                 time.Duration // --timeout, --agent-timeout
	Isolate                               Isolation     // --isolate
}

// Bind defines the limit flags on fs; every value is checked as it is
// parsed.
func (f *LimitFlags) Bind(fs *flag.FlagSet) {
	fv.Count(fs, &f.MaxAgents, "max-agents", "20", "at most `N` agent() calls in the run (default 1000; a request can lower the ceiling, never raise it)")
	fv.Count(fs, &f.Concurrency, "concurrency", "4", "at most `N` agents running at once (default 16)")
	fv.Duration(fs, &f.Timeout, "timeout", "10m", "the run's deadline as a Go `DURATION`: 90s, 5m, 1h30m (default 1h); past it the run ends with TIMEOUT")
	fv.Duration(fs, &f.AgentTimeout, "agent-timeout", "90s", "each agent's deadline, a Go `DURATION` (default none)")
	fv.Count(fs, &f.BudgetTokens, "budget-tokens", "200000", "the run's budget of `N` tokens; agent() past it is BUDGET_EXHAUSTED")
	fv.Size(fs, &f.MaxMemory, "max-memory", "512MiB", "the run's memory budget, `SIZE` (default 256MiB; 512MiB, 1GiB, or bytes): builtins that would allocate past it, and a script that grows the heap past it, end the run with RESOURCE_LIMIT")
	fv.Size(fs, &f.MaxRunFolder, "max-run-folder", "1GiB", "the `SIZE` budget of a kept run's folder, its events.jsonl and journal.jsonl together (default 256MiB); a run that would write past it ends with RESOURCE_LIMIT, and can be resumed with a larger budget")
	fs.Var(fv.NonEmpty("isolate", func(s string) error {
		if s != string(IsolateNone) && s != string(IsolateProcess) {
			return fmt.Errorf("--isolate %q is not an isolation: use --isolate process (each run in a child process of its own) or --isolate none", s)
		}
		f.Isolate = Isolation(s)
		return nil
	}), "isolate", "the isolation `MODE`. process (the default): run the script in a child process of its own, with an OS memory limit and no file system, so that a script that crashes or exhausts its VM ends only its run (a few ms per run); none: in wfrun's process. A resumed, retried or continued run keeps none if it was started with it")
}

// Apply sets the limits of req that f gives, and leaves the others.
func (f *LimitFlags) Apply(req *WorkflowStartRequest) {
	set := func(p *int64, v int64) {
		if v > 0 {
			*p = v
		}
	}
	if f.MaxAgents > 0 {
		req.MaxTotalAgents = f.MaxAgents
	}
	if f.Concurrency > 0 {
		req.Concurrency = f.Concurrency
	}
	set(&req.BudgetTokens, f.BudgetTokens)
	set(&req.MaxMemoryBytes, f.MaxMemory)
	set(&req.MaxRunFolderBytes, f.MaxRunFolder)
	// A sub-millisecond duration rounds up, not to 0, "the default".
	set(&req.TimeoutMs, int64((f.Timeout+time.Millisecond-1)/time.Millisecond))
	set(&req.AgentTimeoutMs, int64((f.AgentTimeout+time.Millisecond-1)/time.Millisecond))
	if f.Isolate != "" {
		req.Isolate = f.Isolate
	}
}
