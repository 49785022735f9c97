package persona

import (
	"reflect"
	"strings"
	"testing"
)

func TestNarrowTools(t *testing.T) {
	available := []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "mcp__github__create_issue", "mcp__github__list_issues", "mcp__calc__add"}
	for _, tc := range []struct {
		name  string
		p     *Persona
		call  []string
		want  []string
		notes []string // substrings, one per note
	}{
		{name: "no persona and no call: everything", want: available},
		{name: "no persona, a call narrows, and a name it cannot have is noted", call: []string{"Read", "mcp__calc__add", "Nope"}, want: []string{"Read", "mcp__calc__add"},
			notes: []string{"tools: Nope names no tool this agent has, so it was dropped"}},
		{name: "no persona, an empty call gives none", call: []string{}, want: []string{}},
		{name: "a persona without tools gets everything", p: &Persona{Name: "gp"}, want: available},
		{name: "a persona with no tools gets none", p: &Persona{Name: "t", Tools: []string{}}, want: []string{}},
		{name: "persona tools, in the available order", p: &Persona{Name: "r", Tools: []string{"Grep", "Read"}}, want: []string{"Read", "Grep"}},
		{name: "disallowedTools come off", p: &Persona{Name: "fixer", Tools: []string{"Read", "Edit", "Write", "Bash", "Grep"}, DisallowedTools: []string{"Write"}},
			want: []string{"Read", "Edit", "Grep", "Bash"}},
		{name: "disallowedTools without tools come off everything", p: &Persona{Name: "x", DisallowedTools: []string{"Write", "Edit", "mcp__github"}},
			want: []string{"Read", "Glob", "Grep", "Bash", "mcp__calc__add"}},
		{name: "the call narrows the persona", p: &Persona{Name: "r", Tools: []string{"Read", "Grep", "Glob"}}, call: []string{"Read", "Bash"}, want: []string{"Read"}},
		{name: "the call never widens the persona", p: &Persona{Name: "r", Tools: []string{"Read"}}, call: []string{"Write", "Bash"}, want: []string{}},
		{name: "a tool wfrun does not have is dropped with a note", p: &Persona{Name: "skeptic", Tools: []string{"Read", "Grep", "Glob", "Bash", "WebSearch", "Skill"}},
			want: []string{"Read", "Glob", "Grep", "Bash"}, notes: []string{"persona skeptic: WebSearch, Skill are not available to this agent, so they were dropped"}},
		{name: "mcp__SERVER is every tool of the server", p: &Persona{Name: "triager", Tools: []string{"Read", "mcp__github"}},
			want: []string{"Read", "mcp__github__create_issue", "mcp__github__list_issues"}},
		{name: "mcp__SERVER__* too", p: &Persona{Name: "triager", Tools: []string{"mcp__github__*"}},
			want: []string{"mcp__github__create_issue", "mcp__github__list_issues"}},
		{name: "an MCP name is cleaned as MCP tool names are", p: &Persona{Name: "c", Tools: []string{"mcp__calc__add", "mcp__git.hub"}},
			want: []string{"mcp__calc__add"}, notes: []string{"mcp__git.hub is not available"}},
		{name: "the call may name a server", p: &Persona{Name: "c"}, call: []string{"mcp__github"},
			want: []string{"mcp__github__create_issue", "mcp__github__list_issues"}},
		{name: "a specifier cannot be enforced, so it grants nothing", p: &Persona{Name: "git-reader", Tools: []string{"Read", "Bash(git diff:*)", "Agent(worker)"}},
			want: []string{"Read"}, notes: []string{"Agent(worker) is not available", "Bash(git diff:*) limits a tool to some uses, which wfrun cannot enforce, so it was not granted"}},
		{name: "Tool(*) is the whole tool", p: &Persona{Name: "b", Tools: []string{"Bash(*)", "Read()"}}, want: []string{"Read", "Bash"}},
		{name: "a disallowed specifier withholds the whole tool", p: &Persona{Name: "careful", Tools: []string{"Read", "Bash"}, DisallowedTools: []string{"Bash(rm:*)"}},
			want: []string{"Read"}, notes: []string{"disallowedTools Bash(rm:*) forbids only some uses of a tool"}},
		{name: "a tool the sandbox mode withholds is dropped like a missing one", p: &Persona{Name: "fixer", Tools: []string{"Read", "Write"}},
			want: []string{"Read"}, notes: []string{"Write is not available"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			avail := available
			if strings.HasPrefix(tc.name, "a tool the sandbox mode") {
				avail = []string{"Read", "Glob", "Grep"}
			}
			got, notes := NarrowTools(avail, tc.p, tc.call)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tools = %v, want %v", got, tc.want)
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes = %q, want %d like %q", notes, len(tc.notes), tc.notes)
			}
			for i, n := range tc.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %d = %q, want it to contain %q", i, notes[i], n)
				}
			}
			for _, tool := range got {
				if !contains(avail, tool) {
					t.Errorf("%s is not in available: narrowing widened the set", tool)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
