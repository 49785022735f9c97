package persona_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wfrun/wfrun/agentapi/persona"
)

func Example() {
	// A workspace with one persona file, as Claude Code users write them.
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	dir := filepath.Join(ws, ".claude", "agents")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte(`---
name: reviewer
description: Reviews one change.
tools: Read, Grep, WebSearch
model: sonnet
color: green
---
You review the change you are given and report real problems only.
`), 0o644)

	set := persona.Load(persona.SearchDirs(nil, ws, ""))
	p, err := set.Lookup("reviewer")
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, notes := persona.NarrowTools([]string{"Read", "Write", "Grep", "Bash"}, &p, nil)
	fmt.Println(p.Name, p.Model, tools)
	fmt.Println(notes)
	fmt.Println(set.Names())
	// Output:
	// reviewer sonnet [Read Grep]
	// [persona reviewer: WebSearch is not available to this agent, so it was dropped]
	// [Explore Plan general-purpose reviewer]
}
