package persona

import (
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/internal/human"
)

// NarrowTools returns the tools a child may use, in the order of available,
// and notes (for agent.end) about persona tools it cannot have and call
// tools that name nothing it has.
//
//   - available is every tool the provider can offer this child: its
//     built-in tools that the sandbox mode allows, its MCP tools, … Nothing
//     outside it is ever returned.
//   - p is the child's persona, or nil for none. Its Tools (nil: all of
//     available) are kept, minus its DisallowedTools.
//   - call is the agent() call's tools option; nil means no narrowing, an
//     empty list no tools.
//
// A name in Tools, DisallowedTools or call is a tool name, or an MCP server
// pattern: "mcp__SERVER" and "mcp__SERVER__*" stand for every tool of that
// server, and characters outside [A-Za-z0-9_-] are read as '_' the way MCP
// tool names are cleaned. Claude Code's specifier forms ("Bash(git
// diff:*)") restrict a tool to some uses, which wfrun cannot enforce, so
// such an entry grants nothing in Tools and withholds the whole tool in
// DisallowedTools. A persona tool that matches nothing available (Skill,
// WebSearch, Agent, Task, or a tool the sandbox mode withholds) is dropped
// with a note; the child still runs. The call's names are not noted: a
// name the child does not have is simply not available.
func NarrowTools(available []string, p *Persona, call []string) (tools []string, notes []string) {
	keep := make(map[string]bool, len(available))
	if p == nil || p.Tools == nil {
		for _, t := range available {
			keep[t] = true
		}
	} else {
		var missing, limited []string
		for _, pat := range p.Tools {
			m, why := expand(pat, available)
			switch why {
			case reasonMissing:
				missing = append(missing, pat)
			case reasonSpecifier:
				limited = append(limited, pat)
			}
			for _, t := range m {
				keep[t] = true
			}
		}
		if len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("persona %s: %s %s not available to this agent, so %s dropped",
				p.Name, strings.Join(missing, ", "), human.Noun(len(missing), "is", "are"), human.Noun(len(missing), "it was", "they were")))
		}
		if len(limited) > 0 {
			notes = append(notes, fmt.Sprintf("persona %s: %s %s a tool to some uses, which wfrun cannot enforce, so %s not granted",
				p.Name, strings.Join(limited, ", "), human.Noun(len(limited), "limits", "limit"), human.Noun(len(limited), "it was", "they were")))
		}
	}
	if p != nil {
		var withheld []string
		for _, pat := range p.DisallowedTools {
			m, why := expand(pat, available)
			if why == reasonSpecifier {
				m = expand1(specifierBase(pat), available)
				if len(m) > 0 {
					withheld = append(withheld, pat)
				}
			}
			for _, t := range m {
				delete(keep, t)
			}
		}
		if len(withheld) > 0 {
			notes = append(notes, fmt.Sprintf("persona %s: disallowedTools %s %s only some uses of a tool, which wfrun cannot tell apart, so the whole tool was withheld",
				p.Name, strings.Join(withheld, ", "), human.Noun(len(withheld), "forbids", "forbid")))
		}
	}
	if call != nil {
		want := map[string]bool{}
		var unknown []string
		for _, pat := range call {
			m, _ := expand(pat, available)
			if len(m) == 0 {
				unknown = append(unknown, pat)
			}
			for _, t := range m {
				want[t] = true
			}
		}
		if len(unknown) > 0 {
			notes = append(notes, fmt.Sprintf("tools: %s %s no tool this agent has, so %s dropped",
				strings.Join(unknown, ", "), human.Noun(len(unknown), "names", "name"), human.Noun(len(unknown), "it was", "they were")))
		}
		for t := range keep {
			if !want[t] {
				delete(keep, t)
			}
		}
	}
	tools = []string{}
	for _, t := range available {
		if keep[t] {
			tools = append(tools, t)
			delete(keep, t) // a name listed twice in available is returned once
		}
	}
	return tools, notes
}

type reason int

const (
	reasonNone      reason = iota // matched, or matched nothing without a note
	reasonMissing                 // names no tool this child has
	reasonSpecifier               // Tool(spec): a restriction wfrun cannot enforce
)

// expand returns the available tools a pattern stands for.
func expand(pat string, available []string) ([]string, reason) {
	pat = strings.TrimSpace(pat)
	if base := specifierBase(pat); base != pat {
		spec := strings.TrimSpace(pat[len(base)+1 : len(pat)-1])
		if spec != "" && spec != "*" {
			if len(expand1(base, available)) == 0 {
				return nil, reasonMissing
			}
			return nil, reasonSpecifier
		}
		pat = base // Tool() and Tool(*) are the whole tool
	}
	m := expand1(pat, available)
	if len(m) == 0 {
		return nil, reasonMissing
	}
	return m, reasonNone
}

// expand1 matches a pattern without a specifier.
func expand1(pat string, available []string) []string {
	var out []string
	if rest, ok := strings.CutPrefix(pat, "mcp__"); ok {
		rest = cleanName(rest)
		prefix := ""
		switch {
		case strings.HasSuffix(rest, "__*"):
			prefix = "mcp__" + strings.TrimSuffix(rest, "*")
		case !strings.Contains(rest, "__"):
			prefix = "mcp__" + rest + "__"
		}
		if prefix != "" {
			for _, t := range available {
				if strings.HasPrefix(t, prefix) {
					out = append(out, t)
				}
			}
			return out
		}
		pat = "mcp__" + rest
	}
	for _, t := range available {
		if t == pat {
			out = append(out, t)
		}
	}
	return out
}

// specifierBase returns "Bash" for "Bash(git diff:*)", and pat itself when
// it has no specifier.
func specifierBase(pat string) string {
	if i := strings.IndexByte(pat, '('); i > 0 && strings.HasSuffix(pat, ")") {
		return strings.TrimSpace(pat[:i])
	}
	return pat
}

// cleanName replaces each character outside [A-Za-z0-9_-*] with '_', as
// MCP tool names are cleaned (the '*' is kept for the wildcard form).
func cleanName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '*':
			return r
		}
		return '_'
	}, s)
}
