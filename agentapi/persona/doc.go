// Package persona reads sub-agent personas: the agent-definition files of
// Claude Code, which scripts name with agent()'s agentType (or persona)
// option.
//
// A persona file is Markdown with YAML front matter; the body is the
// child's system prompt:
//
//	---
//	name: route-auditor
//	description: Reads HTTP route handlers and reports missing authorization checks.
//	tools: Read, Grep, Glob
//	model: haiku
//	effort: low
//	maxTurns: 8
//	---
//	You audit one HTTP handler file for authorization gaps. …
//
// The fields read are name (required), description, tools and
// disallowedTools (a comma-separated string, a YAML block list or a flow
// list), model (an alias, inherit, or a full id: see agentapi/modelmap),
// effort, maxTurns and permissionMode. Every other field (color, skills,
// hooks, memory, …) is ignored without complaint, because files written for
// Claude Code carry them. The YAML is read by a real YAML parser
// (go.yaml.in/yaml/v3).
//
// Files written for Claude Code are often not YAML: a description with an
// unquoted ": ", example dialogues of user: and assistant: lines, a second
// paragraph at the margin. When strict YAML fails, Parse reads the front
// matter line by line instead (lenient.go): each top-level key: value line
// starts a field that runs to the next one, continuation lines indented or
// not. The persona loads with a warning naming the file and the line
// (Persona.Warnings, Set.Warnings). Only what no reading can save is
// refused: tools or maxTurns that are not YAML even on their own, text
// before the first key, and one of Claude Code's keys indented inside
// another field's value (taking it as text would drop it, and dropping
// tools means every tool). A README.md beside the agents is not one of
// them and is skipped.
//
// # Where personas come from
//
// SearchDirs lists the folders in the order they are searched, first match
// winning: explicit folders (--agents-dir, Config.AgentDirs), then
// WORKSPACE/.claude/agents, WORKSPACE/.wfrun/agents, then ~/.claude/agents.
// Load reads every *.md file under them (subfolders included, as Claude Code
// does) once, into a Set. A file that cannot be read or parsed is a
// LoadError naming the file and the line (counted in the user's file, the
// opening --- being line 1); it does not stop the other files from
// loading. A Set keeps both the personas and the errors.
//
// Three built-in personas exist in every Set unless a file of the same name
// overrides them: general-purpose (every tool the sandbox mode allows),
// Explore (read-only: Read, Glob, Grep and Bash) and Plan (read-only, with
// a planning prompt).
//
// # What a persona decides
//
// Set.Lookup finds a persona by name; an unknown name is an *UnknownError
// whose sentence names the folders searched and the closest names, for an
// UNSUPPORTED_OPTION. NarrowTools computes a child's tools: the persona's
// tools (all when it lists none), minus its disallowedTools, intersected
// with the call's tools. It never widens; a tool wfrun does not have is
// dropped with a note. Persona.ReadOnly says that the persona narrows the
// run's sandbox mode to read-only (permissionMode plan, and the read-only
// built-ins); no persona widens the mode.
//
// A Set is immutable after Load and safe for concurrent use; a nil *Set
// holds only the built-ins. The package has no mutable package-level state.
//
// Place in wfrun: an agentapi sub-package used by providers (agentapi/openai)
// and the command line; it imports agentapi/modelmap and its YAML and
// edit-distance libraries, never runtime, engine, sandbox or cmd.
package persona
