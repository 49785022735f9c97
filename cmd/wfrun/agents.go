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

// agentsCommand is `wfrun agents [--agents-dir DIR]... [--workspace DIR]
// [--json]`: the personas a run with the same flags would know, where each
// comes from, and the files that failed to load (FILE:LINE: sentence). It
// exits 0 when every file loaded and 1 when some did not; the listing is
// printed either way.
func agentsCommand(args []string, e env) int {
	dirs, workspace, asJSON, code, ok := listingFlags("agents", "agents-dir", args, e)
	if !ok {
		return code
	}
	set, err := loadPersonas(dirs, workspace, e)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	code = exitCompleted
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

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

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

// listingFlags reads the flags of a listing command (agents, workflows):
// its repeatable folder flag, --workspace and --json. When ok is false
// the command is over and code is its exit status: help was printed, or a
// bad invocation was said.
func listingFlags(cmd, dirFlag string, args []string, e env) (dirs []string, workspace string, asJSON bool, code int, ok bool) {
	var list stringList
	var wantHelp bool
	fs := flag.NewFlagSet("wfrun "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&list, dirFlag, "")
	fs.StringVar(&workspace, "workspace", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&wantHelp, "help", false, "")
	fs.BoolVar(&wantHelp, "h", false, "")
	if err := fs.Parse(args); err != nil {
		return nil, "", false, usageFail(e, "%s: %v", cmd, flagError(cmdRun, err)), false
	}
	if wantHelp {
		return nil, "", false, help(e), false
	}
	if fs.NArg() > 0 {
		return nil, "", false, usageFail(e, "%s takes only flags; got %q", cmd, fs.Arg(0)), false
	}
	for _, d := range list {
		if strings.TrimSpace(d) == "" {
			return nil, "", false, usageFail(e, "--%s is empty; give it a folder or leave it out", dirFlag), false
		}
	}
	return list, workspace, asJSON, 0, true
}
