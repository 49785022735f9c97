package runtime_test

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
)

// Errors raised inside host functions teach: they name the bad value and
// carry the position of the script's call, so that a model that wrote twenty
// agent() calls can fix the right one.
func TestErrors_HostFunctionErrorsCarryTheCallersPositionAndNameTheValue(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		code      wferr.Code
		contains  string
		line, col int // goja places a call at its opening parenthesis
	}{
		{"maxTurns zero", "const a = 1\n\nawait agent('x', { maxTurns: 0 })", wferr.InvalidArgument, "maxTurns must be a positive integer, got 0", 3, 12},
		{"label a number", "await agent('x', { label: 42 })", wferr.InvalidArgument, "label must be a string, got 42", 1, 12},
		{"timeout fractional", "await agent('x', {\n  timeoutMs: 1.5 })", wferr.InvalidArgument, "got 1.5", 1, 12},
		{"schema a string", "\nawait agent('x', { schema: 'object' })", wferr.UnsupportedSchema, `got "object"`, 2, 12},
		{"schema not object root", "await agent('x', { schema: { type: 'array' } })", wferr.UnsupportedSchema, "", 1, 12},
		{"tools item", "await agent('x', { tools: ['Read', 7] })", wferr.InvalidArgument, "item 1 is 7", 1, 12},
		{"empty prompt", "log('a')\nawait agent('   ')", wferr.InvalidArgument, "empty prompt", 2, 12},
		{"first argument", "await agent(12)", wferr.InvalidArgument, "agent() got 12 as its first argument", 1, 12},
		{"phase empty title", "phase('')", wferr.InvalidArgument, "got an empty string", 1, 6},
		{"phase blank title", "phase('  ')", wferr.InvalidArgument, "got a string of only spaces", 1, 6},
		{"parallel of promises", "await parallel([agent('a'), agent('b')])", wferr.InvalidArgument, "item 0 is a promise, not a function", 1, 15},
		{"parallel of numbers", "await parallel([1])", wferr.InvalidArgument, "item 0 is 1", 1, 15},
		{"pipeline not an array", "await pipeline('abc', x => x)", wferr.InvalidArgument, `got "abc"`, 1, 15},
		{"inside a thunk", "const xs = [1, 2]\nawait parallel(xs.map(x => () =>\n  agent('x', { effort: 3 })))", wferr.InvalidArgument, "effort must be a string, got 3", 3, 8},
		{"inside a helper function", "function ask(p) {\n  return agent(p, { model: false })\n}\nawait ask('x')", wferr.InvalidArgument, "got false", 2, 15},
		{"unknown option at run time", "const o = { temperature: 1 }\nawait agent('x', o)", wferr.UnsupportedOption, "temperature", 2, 12},
		{"agent cap", "await agent('a')\nawait agent('b')", wferr.AgentCap, "at most 1", 2, 12},
		{"workflow name", "await workflow(3)", wferr.InvalidArgument, "got 3", 1, 15},
		{"workflow object with an unknown key", "await workflow({ file: 'x.js' })", wferr.InvalidArgument, `does not take "file"`, 1, 15},
		{"workflow object with neither", "await workflow({ args: 1 })", wferr.InvalidArgument, "needs scriptPath (a .js file in the workspace) or name", 1, 15},
		{"workflow scriptPath not a string", "await workflow({ scriptPath: 7 })", wferr.InvalidArgument, "needs a non-empty string, got 7", 1, 15},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := runScript(t, c.src, func(cfg *Config) {
				if c.code == wferr.AgentCap {
					cfg.MaxAgents = 1
				}
			})
			wantCode(t, out, c.code, c.contains)
			if out.Err.Line != c.line || out.Err.Column != c.col {
				t.Fatalf("position %d:%d, want %d:%d (%v)", out.Err.Line, out.Err.Column, c.line, c.col, out.Err)
			}
		})
	}
}

func TestErrors_MessagesNeverDescribeAValueByItsTypeAlone(t *testing.T) {
	for _, src := range []string{
		"await agent('x', { maxTurns: -3 })",
		"await agent('x', { timeoutMs: '90s' })",
		"phase('')",
		"await agent('x', { label: true })",
	} {
		out, _ := runScript(t, src)
		if out.Err == nil {
			t.Fatalf("%s completed", src)
		}
		for _, vague := range []string{"got a number", "got a string", "got a boolean"} {
			if strings.Contains(out.Err.Message, vague) {
				t.Errorf("%s: %q says %q instead of naming the value", src, out.Err.Message, vague)
			}
		}
	}
}
