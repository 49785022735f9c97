package listing

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/human"
)

// Agents is what wfrun agents lists, and its --json form: the folders
// searched, the personas found, and the files that failed to load.
type Agents struct {
	Dirs     []Dir             `json:"dirs"`
	Personas []persona.Persona `json:"personas"`
	Errors   []Problem         `json:"errors"`
	// Warnings are files that loaded but are not valid YAML (read line
	// by line): each names the file and the line.
	Warnings []Problem `json:"warnings"`
}

// Dir is a folder searched, and whether it exists.
type Dir struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

// Problem is a file that failed to load, or loaded with a warning.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// AgentsOf lists the personas of set.
func AgentsOf(set *persona.Set) Agents {
	out := Agents{Dirs: []Dir{}, Personas: set.Personas(), Errors: []Problem{}, Warnings: []Problem{}}
	found := map[string]bool{}
	for _, d := range set.FoundDirs() {
		found[d] = true
	}
	for _, d := range set.Dirs() {
		out.Dirs = append(out.Dirs, Dir{Path: d, Found: found[d]})
	}
	for _, le := range set.Errors() {
		out.Errors = append(out.Errors, Problem{File: le.File, Line: le.Line, Message: le.Message})
	}
	for _, w := range set.Warnings() {
		out.Warnings = append(out.Warnings, Problem{File: w.File, Line: w.Line, Message: w.Message})
	}
	return out
}

// WriteAgents writes the listing for a person: the folders, one row per
// persona, then the errors.
func WriteAgents(w io.Writer, set *persona.Set) {
	l := AgentsOf(set)
	writeFolders(w, l.Dirs)
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

// writeFolders writes the folders a listing searched, in order, each
// marked when it does not exist, and a blank line.
func writeFolders(w io.Writer, dirs []Dir) {
	fmt.Fprintln(w, "Folders searched, first match wins:")
	for _, d := range dirs {
		state := ""
		if !d.Found {
			state = "  (none)"
		}
		fmt.Fprintf(w, "  %s%s\n", d.Path, state)
	}
	fmt.Fprintln(w)
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

// WriteWorkflows writes the listing of wfrun workflows for a person: the folders, one row per
// workflow, then the errors.
func WriteWorkflows(w io.Writer, l engine.SavedWorkflows) {
	dirs := make([]Dir, len(l.Dirs))
	for i, d := range l.Dirs {
		dirs[i] = Dir{Path: d.Path, Found: d.Found}
	}
	writeFolders(w, dirs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPHASES\tFILE\tDESCRIPTION")
	for _, sw := range l.Workflows {
		phases := strings.Join(sw.Phases, ", ")
		if phases == "" {
			phases = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sw.Name, human.FirstLine(phases, 40), sw.File, human.FirstLine(sw.Description, 60))
	}
	_ = tw.Flush()
	if len(l.Errors) > 0 {
		fmt.Fprintf(w, "\n%d %s could not be loaded:\n", len(l.Errors), human.Noun(len(l.Errors), "file", "files"))
		for _, le := range l.Errors {
			if le.Line > 0 {
				fmt.Fprintf(w, "  %s:%d: %s\n", le.File, le.Line, le.Message)
			} else {
				fmt.Fprintf(w, "  %s: %s\n", le.File, le.Message)
			}
		}
	}
}
