package setup

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
)

// Workspace returns the folder the sub-agents work in: dir as given, or
// the current folder when dir is "", after checking that it is a folder.
func Workspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot tell the current folder (%v); pass --workspace DIR", err)
		}
		return wd, nil
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", fmt.Errorf("--workspace %s is not a folder; name the folder the sub-agents work in", dir)
	}
	return dir, nil
}

// Personas loads the personas of dirs, then of the workspace (Workspace
// of workspace) .claude/agents and .wfrun/agents, then of home's
// .claude/agents, in that order.
func Personas(dirs []string, workspace, home string) (*persona.Set, error) {
	ws, err := Workspace(workspace)
	if err != nil {
		return nil, err
	}
	return persona.Load(persona.SearchDirs(dirs, ws, home)), nil
}

// Local is the engine configuration of a command started in workspace
// ("" the current folder) without flags, as wfrun tool describes what a
// wfrun mcp started there would serve: the personas and the saved
// workflows it finds in the workspace and in home.
func Local(workspace, home string) (engine.Config, error) {
	ws, err := Workspace(workspace)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{Personas: persona.Load(persona.SearchDirs(nil, ws, home)), Workspace: ws,
		WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, home)}, nil
}

// SavedWorkflows lists the saved workflows that workflow(name) and `wfrun
// NAME` find with the folders dirs, the workspace (Workspace of
// workspace) and home, and the files that failed to load.
func SavedWorkflows(dirs []string, workspace, home string) (engine.SavedWorkflows, error) {
	ws, err := Workspace(workspace)
	if err != nil {
		return engine.SavedWorkflows{}, err
	}
	return engine.ListSavedWorkflows(engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs(dirs, ws, home), Workspace: ws}), nil
}

// savedWorkflowName matches what `wfrun NAME` may take for the name of a
// saved workflow rather than a file: a workflow name, not ending in .js.
var savedWorkflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// IsSavedWorkflowRef reports whether a script argument names a saved
// workflow: no such file exists, and it is a workflow name, not a path.
func IsSavedWorkflowRef(arg string) bool {
	if arg == "-" || strings.HasSuffix(arg, ".js") || !savedWorkflowName.MatchString(arg) {
		return false
	}
	_, err := os.Stat(arg)
	return os.IsNotExist(err)
}

// FindSavedWorkflow finds the saved workflow name where workflow(name)
// finds it with cfg (engine.FindSavedWorkflow); its error is the
// sentence alone, without the code, for a message that says more around
// it.
func FindSavedWorkflow(cfg engine.Config, name string) (file, src string, err error) {
	file, src, err = engine.FindSavedWorkflow(cfg, name)
	var we *engine.Error
	if errors.As(err, &we) {
		err = errors.New(we.Message)
	}
	return file, src, err
}

// EngineDefaults makes a request's limits and sub-agent provider the
// engine's defaults, for every run the engine starts: how wfrun mcp, agent
// and ui take --max-agents, --concurrency, --timeout, --agent-timeout,
// --budget-tokens and the others, which have no script of their own.
func EngineDefaults(cfg *engine.Config, req engine.WorkflowStartRequest) {
	if req.SubagentProvider != "" {
		cfg.DefaultProvider = req.SubagentProvider
	}
	cfg.MaxTotalAgents = req.MaxTotalAgents
	cfg.Concurrency = req.Concurrency
	cfg.BudgetTokens = req.BudgetTokens
	cfg.MaxMemory = req.MaxMemoryBytes
	cfg.MaxRunFolder = req.MaxRunFolderBytes
	cfg.Isolate = req.Isolate
	cfg.RunTimeout = time.Duration(req.TimeoutMs) * time.Millisecond
	cfg.AgentTimeout = time.Duration(req.AgentTimeoutMs) * time.Millisecond
}
