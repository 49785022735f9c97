package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/internal/human"
)

// agentsCmd is `wfrun agents [--agents-dir DIR]... [--workspace DIR]
// [--json]`: the personas a run with the same flags would know, where each
// comes from, and the files that failed to load (FILE:LINE: sentence). It
// exits 0 when every file loaded and 1 when some did not; the listing is
// printed either way.
func agentsCmd(fs *flag.FlagSet) runFunc {
	l := &listingOptions{}
	agentsDirFlag(fs, &l.dirs)
	return l.bind(fs, "agents", agents)
}

func agents(e env, dirs []string, workspace string, asJSON bool) int {
	set, err := loadPersonas(dirs, workspace, e)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	code := exitCompleted
	if len(set.Errors()) > 0 {
		code = exitFailed
	}
	if asJSON {
		return printJSON(e, agentsListing(set), code)
	}
	writeAgents(e.stdout, set)
	return code
}

// workspaceDir returns --workspace as given, or the current folder, after
// checking that it is a folder.
func workspaceDir(dir string) (string, error) {
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

// loadPersonas loads the personas of --agents-dir, the workspace's
// .claude/agents and .wfrun/agents, and ~/.claude/agents, in that order.
func loadPersonas(dirs []string, workspace string, e env) (*persona.Set, error) {
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil, err
	}
	return persona.Load(persona.SearchDirs(dirs, ws, e.getenv("HOME"))), nil
}

// agentsJSON is the --json form of the listing.
type agentsJSON struct {
	Dirs     []agentsDir       `json:"dirs"`
	Personas []persona.Persona `json:"personas"`
	Errors   []agentsError     `json:"errors"`
	// Warnings are files that loaded but are not valid YAML (read line
	// by line): each names the file and the line.
	Warnings []agentsError `json:"warnings"`
}

type agentsDir struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

type agentsError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func agentsListing(set *persona.Set) agentsJSON {
	out := agentsJSON{Dirs: []agentsDir{}, Personas: set.Personas(), Errors: []agentsError{}, Warnings: []agentsError{}}
	found := map[string]bool{}
	for _, d := range set.FoundDirs() {
		found[d] = true
	}
	for _, d := range set.Dirs() {
		out.Dirs = append(out.Dirs, agentsDir{Path: d, Found: found[d]})
	}
	for _, le := range set.Errors() {
		out.Errors = append(out.Errors, agentsError{File: le.File, Line: le.Line, Message: le.Message})
	}
	for _, w := range set.Warnings() {
		out.Warnings = append(out.Warnings, agentsError{File: w.File, Line: w.Line, Message: w.Message})
	}
	return out
}

// writeAgents prints the listing for a person: the folders, one row per
// persona, then the errors.
func writeAgents(w io.Writer, set *persona.Set) {
	l := agentsListing(set)
	fmt.Fprintln(w, "Folders searched, first match wins:")
	for _, d := range l.Dirs {
		state := ""
		if !d.Found {
			state = "  (none)"
		}
		fmt.Fprintf(w, "  %s%s\n", d.Path, state)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODEL\tTOOLS\tSOURCE\tDESCRIPTION")
	for _, p := range l.Personas {
		model := p.Model
		if model == "" {
			model = "inherit"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, model, toolsText(p), p.Source, human.FirstLine(p.Description, 60))
	}
	_ = tw.Flush()
	if warns := set.Warnings(); len(warns) > 0 {
		fmt.Fprintf(w, "\n%d %s loaded with a warning:\n", len(warns), human.Noun(len(warns), "file", "files"))
		for _, le := range warns {
			fmt.Fprintf(w, "  %v\n", le)
		}
	}
	if len(l.Errors) > 0 {
		fmt.Fprintf(w, "\n%d %s could not be loaded:\n", len(l.Errors), human.Noun(len(l.Errors), "file", "files"))
		for _, le := range set.Errors() {
			fmt.Fprintf(w, "  %v\n", le)
		}
	}
}

// toolsText describes a persona's tools in one cell.
func toolsText(p persona.Persona) string {
	s := "all"
	switch {
	case p.Tools == nil:
	case len(p.Tools) == 0:
		s = "none"
	default:
		s = strings.Join(p.Tools, ", ")
	}
	if len(p.DisallowedTools) > 0 {
		s += " (not " + strings.Join(p.DisallowedTools, ", ") + ")"
	}
	if p.ReadOnly {
		s += " [read-only]"
	}
	return s
}

// listingOptions are the flags of a listing command (agents, workflows):
// its repeatable folder flag, --workspace and --json.
type listingOptions struct {
	dirs      []string
	workspace string
	asJSON    bool
}

// bind binds --workspace and --json and returns the command's run
// function, which calls list with the flags.
func (l *listingOptions) bind(fs *flag.FlagSet, cmd string, list func(e env, dirs []string, workspace string, asJSON bool) int) runFunc {
	workspaceFlag(fs, &l.workspace)
	bindJSON(fs, &l.asJSON)
	return func(e env, positional []string) int {
		if len(positional) > 0 {
			return usageFail(e, "%s takes only flags; got %q", cmd, positional[0])
		}
		return list(e, l.dirs, l.workspace, l.asJSON)
	}
}
