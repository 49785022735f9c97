package layers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wfrun/wfrun/"

// rules says, for each package (a path relative to the module; a trailing
// "/..." covers the sub-packages too), which of wfrun's own packages it may
// depend on, directly or not, besides the leaves. A package not covered by
// any rule may depend on nothing of wfrun's but the leaves. Test files are not covered:
// tests may reach across (runtime's tests use runtime/eventcheck, which
// imports runtime).
// leaves are the packages below everything, which every package may use:
// the error vocabulary, how numbers and nouns are said to people, how a
// file is opened where a child could have planted a link, where wfrun
// keeps what no child may read, and how JSON that people and models write
// is decoded strictly and its mistakes named, and how a flag's value is
// checked as it is parsed.
var leaves = []string{"internal/wferr", "internal/human", "internal/nofollow", "internal/statedir", "internal/strictjson", "internal/flagvalue"}

var rules = []struct {
	pkg     string
	mayUse  []string // prefixes, relative to the module
	comment string
}{
	{"internal/wferr", nil, "the error vocabulary, below everything"},
	{"internal/human", nil, "how wfrun says numbers and nouns, below everything"},
	{"internal/nofollow", nil, "opening beneath a folder without following links, below everything"},
	{"internal/statedir", nil, "where wfrun keeps what no child may read, below everything"},
	{"internal/strictjson", nil, "strict JSON decoding and the sentences' facts, below everything"},
	{"internal/flagvalue", nil, "checked flag values, below everything"},
	{"meta", []string{"internal/wferr"}, "meta executes nothing and knows no sandbox"},
	{"sandbox", []string{"internal/wferr"}, "the sandbox knows no agents, meta or runs"},
	{"agentapi/...", []string{"agentapi", "internal/wferr"}, "the provider contract and the providers import none of the others"},
	{"runtime", []string{"sandbox", "agentapi", "meta", "internal/wferr"}, "a run knows no engine, files or CLI"},
	{"runtime/isolate", []string{"runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "a run in a child process is still a run: it knows no engine"},
	{"engine", []string{"engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the Go API sits on the runtime and its stores, never on its tools"},
	{"engine/journal", []string{"runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "run folders and journals know no engine or ledger"},
	{"engine/ledger", []string{"agentapi", "internal/wferr"}, "the ledger stores; it knows no engine, runtime or journal"},
	{"engine/ralph", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the Ralph loop is a workflow on the engine"},
	{"engine/subagent", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "continuable sub-agents sit on the engine's providers and ledger"},
	{"engine/tool", []string{"engine/subagent", "engine/ralph", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the tools sit on the engine"},
	{"engine/mcpserver", []string{"internal/loopback", "engine/tool", "engine/subagent", "engine/ralph", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the MCP server sits on the tools"},
	{"engine/trace", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "traces sit on the engine, beside its tools"},
	{"engine/ui", []string{"internal/loopback", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the page sits on the engine, beside its tools; it applies the verbs through the engine"},
	{"engine/temporal", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "runs on Temporal sit on the engine and drive the runtime through its scheduler seam; the tools know them only as a function"},
	{"engine/progress", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the progress line sits on the engine's events"},
	{"engine/listing", []string{"engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the listings render what the engine, its ledger and the personas hold"},
	{"engine/setup", []string{"engine/trace", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "assembling a run's request, providers and engine from settings sits on the engine, the providers and the tracer, below the CLI"},
	{"engine/tool/parent", []string{"engine/tool", "engine/subagent", "engine/ralph", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the parent agent is a model whose tools are engine/tool's"},
	{"engine/foreground", []string{"internal/interrupt", "engine/setup", "engine/listing", "engine/progress", "engine/tool", "engine/subagent", "engine/ralph", "engine/trace", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "a foreground command for a person at a terminal sits on the assembly of engine/setup and the progress line, below the CLI"},
	{"cmd/...", []string{"engine/foreground", "internal/interrupt", "internal/loopback", "engine/listing", "engine/progress", "engine/setup", "engine/mcpserver", "engine/tool", "engine/subagent", "engine/ralph", "engine/trace", "engine/ui", "engine/temporal", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the CLI wires flags to the engine"},
	{"internal/loopback", nil, "whether a listen address stays on this machine; below the servers"},
	{"internal/interrupt", nil, "waiting while signals come, below the CLI"},
	{"runtime/eventcheck", []string{"runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "test support"},
	{"engine/internal/benchkit", []string{"agentapi", "internal/wferr"}, "what benchmarks share: a held provider and the resident memory"},
	{"engine/internal/bench", []string{"engine/internal/benchkit", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the speed comparison is a program on the engine, like the CLI"},
	{"engine/temporal/internal/scalebench", []string{"engine/temporal", "engine", "engine/journal", "engine/ledger", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "the scaling benchmark is a program on engine/temporal, like the CLI"},
	{"engine/enginetest", []string{"engine", "engine/journal", "engine/ledger", "runtime/eventcheck", "runtime", "sandbox", "agentapi", "meta", "internal/wferr"}, "test support"},
}

// deps returns every package of the module and the module's packages each
// depends on, from go list -deps.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	graph := map[string][]string{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		fields := strings.Fields(string(line))
		pkg := strings.TrimPrefix(fields[0], module)
		var own []string
		for _, d := range fields[1:] {
			if rel, ok := strings.CutPrefix(d, module); ok {
				own = append(own, rel)
			}
		}
		graph[pkg] = own
	}
	return graph
}

func covers(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// allowed reports whether dep is one of the packages a rule lists. "engine"
// means the engine package alone: its sub-packages (tool, mcpserver) sit on
// top of it and are listed by name; any other prefix covers its
// sub-packages.
func allowed(prefixes []string, dep string) bool {
	for _, p := range prefixes {
		if dep == p || (p != "engine" && strings.HasPrefix(dep, p+"/")) {
			return true
		}
	}
	return slices.Contains(leaves, dep)
}

// violations checks a dependency graph (package → the module's packages
// it depends on, relative paths) against the rules.
func violations(graph map[string][]string) []string {
	var out []string
	for pkg, ds := range graph {
		var rule *struct {
			pkg     string
			mayUse  []string
			comment string
		}
		for i := range rules {
			if covers(rules[i].pkg, pkg) {
				rule = &rules[i] // the last matching rule wins: specific after general
			}
		}
		for _, d := range ds {
			switch {
			case strings.HasPrefix(d, "internal/") && strings.HasPrefix(pkg, "internal/"):
				continue // test support may use test support
			case strings.HasPrefix(d, pkg+"/internal/"):
				continue // a package's own internal helpers
			case rule == nil:
				if !slices.Contains(leaves, d) && !strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(pkg, "scripts/") {
					out = append(out, pkg+" depends on "+d+", and no layering rule covers it: add one")
				}
			case !allowed(rule.mayUse, d):
				out = append(out, pkg+" depends on "+d+": "+rule.comment+" (it may use "+strings.Join(rule.mayUse, ", ")+")")
			}
		}
	}
	return out
}

func TestImportArrowsPointOneWay(t *testing.T) {
	graph := deps(t)
	if len(graph) < 10 {
		t.Fatalf("go list found %d packages", len(graph))
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

func TestTheRulesCatchAnArrowThatTurnsBack(t *testing.T) {
	for _, c := range []struct{ pkg, dep string }{
		{"sandbox", "runtime"}, {"agentapi/openai", "engine"}, {"agentapi", "meta"}, {"runtime", "engine"},
		{"meta", "sandbox"}, {"engine", "engine/tool"}, {"engine/ledger", "engine"}, {"engine/journal", "engine/ledger"}, {"engine", "engine/ralph"}, {"engine/tool", "engine/mcpserver"}, {"sandbox", "agentapi/schema"},
		{"engine", "engine/trace"}, {"engine/trace", "engine/tool"}, {"engine/subagent", "engine/tool"}, {"engine", "engine/subagent"},
		{"engine", "engine/ui"}, {"engine/ui", "engine/tool"}, {"engine/ledger", "engine/ui"},
		{"engine", "engine/setup"}, {"engine/setup", "engine/tool"}, {"engine/setup", "engine/mcpserver"}, {"internal/interrupt", "engine"}, {"engine/tool", "engine/tool/parent"}, {"engine/tool/parent", "engine/mcpserver"},
		{"newpkg", "runtime"},
	} {
		if v := violations(map[string][]string{c.pkg: {c.dep}}); len(v) != 1 {
			t.Errorf("%s depending on %s: %d violations, want 1", c.pkg, c.dep, len(v))
		}
	}
	for _, c := range []struct{ pkg, dep string }{
		{"runtime", "sandbox"}, {"engine/mcpserver", "engine/tool"}, {"agentapi/openai", "agentapi/persona"},
		{"agentapi/command", "agentapi/internal/proc"}, {"cmd/wfrun", "engine/mcpserver"}, {"cmd/wfrun", "engine/trace"},
		{"cmd/wfrun", "engine/ui"}, {"engine/ui", "engine/ledger"},
		{"cmd/wfrun", "engine/setup"}, {"cmd/wfrun", "engine/tool/parent"}, {"engine/setup", "agentapi/openai"}, {"engine/setup", "engine/trace"}, {"cmd/wfrun", "internal/interrupt"}, {"engine/tool/parent", "engine/tool"},
	} {
		if v := violations(map[string][]string{c.pkg: {c.dep}}); len(v) != 0 {
			t.Errorf("%s depending on %s refused: %v", c.pkg, c.dep, v)
		}
	}
}

// The hardened VM gives agent() no meaning: the analysis of agent calls
// lives in meta/calls, which reads the script the sandbox parsed, and the
// engine asks the sandbox to keep the calls by name. A Go string "agent"
// in the sandbox's code would be the VM knowing about agents again.
func TestTheSandboxKnowsNoAgents(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, module+"sandbox").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fields := strings.Fields(string(out))
	for _, name := range fields[1:] {
		data, err := os.ReadFile(filepath.Join(fields[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(`"agent"`)) {
			t.Errorf("sandbox/%s names \"agent\": the agent-call analysis belongs in meta/calls", name)
		}
	}
	out, err = exec.Command("go", "list", "-deps", module+"sandbox").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, module+"agentapi") || strings.HasPrefix(dep, module+"meta") {
			t.Errorf("sandbox depends on %s", dep)
		}
	}
}
