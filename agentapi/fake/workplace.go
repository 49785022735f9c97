package fake

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/tools"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

// A dry run is a rehearsal: with Options.Workspace the fake refuses and
// notes what a real provider working in that workspace (openai's) would,
// before it answers. It runs no tool and makes no worktree.

// isolationWorktree is the one isolation real providers offer.
const isolationWorktree = "worktree"

// rehearse checks req against the workspace as a real provider would and
// returns the notes a real child would carry, or the error that would end
// the run.
func (p *Provider) rehearse(isolation string, callTools []string) (notes []string, err error) {
	ws := p.workspace
	if ws == nil {
		return nil, nil
	}
	switch isolation {
	case "":
	case isolationWorktree:
		if !inRepository(ws.Root()) {
			return nil, wferr.Wrap(wferr.AgentStart, workspace.ErrNotRepository,
				"isolation 'worktree' needs the workspace to be inside a git repository, and %s is not: run `git init` there and commit, point --workspace at a repository, or drop isolation from the agent() call", ws.Root())
		}
	default:
		return nil, wferr.New(wferr.UnsupportedOption, "agent() option isolation must be %q, got %q: a child is isolated in a git worktree of its own",
			isolationWorktree, isolation)
	}
	if callTools == nil {
		return nil, nil
	}
	// MCP tools (mcp__SERVER__TOOL) depend on servers the rehearsal does
	// not start: only the built-in names are held to the workspace's.
	var builtin []string
	for _, t := range callTools {
		if !strings.HasPrefix(t, "mcp__") {
			builtin = append(builtin, t)
		}
	}
	_, notes = persona.NarrowTools(tools.Names(ws.Mode()), nil, builtin)
	return notes, nil
}

// inRepository reports whether dir or a folder above it holds .git (a
// folder, or a worktree's file).
func inRepository(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
