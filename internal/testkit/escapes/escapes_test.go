//go:build linux

package escapes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/gittest"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// secret is OPENAI_API_KEY in wfrun's environment: no child may read it.
const secret = "sk-escapes-SECRET-6f1d"

// outsideToken is in every outside file: a tool result that shows it has
// read outside the workspace.
const outsideToken = "OUTSIDE-TOKEN-77a3"

// outsideMtime, outsideOwner: the known stat of the outside files.
var outsideMtime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

const outsideOwner = 4242

// survivorGrace is how long, on an idle machine, the test waits for a
// process of the child that wfrun killed to leave the process table after
// wfrun has exited (a survivor nobody killed is reported at once).
const survivorGrace = 2 * time.Second

func TestEscapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wfrun and runs it once per case and mode")
	}
	files, _ := filepath.Glob("../../../testdata/escapes/*.yaml")
	if len(files) == 0 {
		t.Fatal("no case in testdata/escapes")
	}
	var cases []escapeCase
	for _, f := range files {
		c, err := loadCase(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	bin := testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun")
	if why := sandboxRefused(t, bin); why != "" {
		t.Skipf("wfrun refuses sandboxed commands on this machine, so no case would run as written: %s", why)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, mode := range c.Modes {
				t.Run(mode, func(t *testing.T) {
					t.Parallel()
					escapes := runCase(t, bin, c, mode)
					switch {
					case c.pendingIn(mode) && len(escapes) > 0:
						t.Skipf("pending (%s); it escapes today:\n%s", c.Pending, strings.Join(escapes, "\n"))
					case c.pendingIn(mode):
						t.Fatalf("holds now, but is marked pending (%s): remove its pending field (or this mode from pending_in)", c.Pending)
					default:
						for _, e := range escapes {
							t.Error(e)
						}
					}
				})
			}
		})
	}
}

// runCase lays out the case's folders, runs wfrun on them in mode and
// returns the escapes it saw: every check that did not hold. A fault of
// the test itself (a folder it cannot make) fails t at once.
func runCase(t *testing.T, bin string, c escapeCase, mode string) []string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	can := newCanary(t)
	p := newPlaces(t, root)
	p.canaryHost, p.canaryPort, p.canaryUDPPort = can.addrs()
	layOut(t, c, p)
	script := filepath.Join(p.home, "escape.js")
	if err := os.WriteFile(script, []byte(workflow(c, mode)), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStub(t, p, c.Children)
	before := takeSnapshot(p.root, "ws", "home")

	var escapes []string
	timer := loadbound.Start(t)
	res, stderr, ferr := runWfrun(t, bin, c, p, st.URL+"/v1", mode, script)
	if ferr != "" {
		escapes = append(escapes, ferr)
	}
	// A process that wfrun killed as it exited may take a moment to leave
	// the process table, longer on a loaded machine.
	if left := waitSurvivors(root, timer.Stop().Bound(survivorGrace)); len(left) > 0 {
		for _, s := range left {
			escapes = append(escapes, fmt.Sprintf("process %d (%s) outlived wfrun", s.pid, s.cmdline))
			_ = syscall.Kill(s.pid, syscall.SIGKILL) // it runs a command of this case
		}
	}
	if c.Expect.Resume != nil && ferr == "" {
		escapes = append(escapes, resume(t, bin, c, p, st.URL+"/v1", mode)...)
	}

	for _, d := range before.diff(takeSnapshot(p.root, "ws", "home")) {
		escapes = append(escapes, "outside the workspace, "+d)
	}
	results := st.toolResults()
	for _, s := range append([]string{secret}, c.Expect.ResultsLack...) {
		s = p.expand(s)
		if ids := containsIn(results, s); len(ids) > 0 {
			sort.Strings(ids)
			escapes = append(escapes, fmt.Sprintf("the tool results of %v show %q", ids, s))
		}
	}
	if conns, dgrams := can.reached(); conns > 0 || dgrams > 0 {
		escapes = append(escapes, fmt.Sprintf("the loopback canary got %d TCP connections and %d UDP datagrams with the network off", conns, dgrams))
	}
	for _, a := range c.Expect.Absent {
		found, _ := filepath.Glob(p.expand(a))
		for _, f := range found {
			escapes = append(escapes, f+" exists")
		}
	}
	for _, l := range c.Expect.Lacks {
		found, _ := filepath.Glob(p.expand(l.Path))
		for _, f := range found {
			data, _ := os.ReadFile(f)
			if bytes.Contains(data, []byte(p.expand(l.Text))) {
				escapes = append(escapes, fmt.Sprintf("%s contains %q", f, p.expand(l.Text)))
			}
		}
	}
	if strays := st.strayRequests(); len(strays) > 0 {
		t.Errorf("the stub got requests that are not a child's turn: %v", strays)
	}
	if ferr == "" && c.Expect.Played {
		for _, u := range st.unplayed() {
			escapes = append(escapes, "not every child played its script (a tool call hung until the agent timeout?): "+u)
		}
	}
	if strings.Contains(stderr, "did not shut down") {
		escapes = append(escapes, "wfrun's engine did not shut down in time: a tool call of the child outlived it")
	}
	if len(escapes) > 0 || testing.Verbose() {
		t.Logf("wfrun's result: %s\nits stderr:\n%s\ntool results:\n%s", res, stderr, describe(results))
		if un := st.unplayed(); len(un) > 0 {
			t.Logf("not every child played its script: %v", un)
		}
	}
	return escapes
}

// describe lists tool results in call order.
func describe(results map[string]toolResult) string {
	ids := make([]string, 0, len(results))
	for id := range results {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := results[ids[i]], results[ids[j]]
		if a.child != b.child {
			return a.child < b.child
		}
		if a.turn != b.turn {
			return a.turn < b.turn
		}
		return a.call < b.call
	})
	var sb strings.Builder
	for _, id := range ids {
		r := results[id]
		content := r.content
		if len(content) > 600 {
			content = content[:600] + "…"
		}
		fmt.Fprintf(&sb, "  child %d turn %d call %d: %s\n", r.child, r.turn, r.call, content)
	}
	return sb.String()
}

// layOut makes the workspace (a git repository with the case's files
// committed, then its symlinks and FIFOs), the outside folder and wfrun's
// home.
func layOut(t *testing.T, c escapeCase, p places) {
	t.Helper()
	for _, d := range []string{p.ws, p.outside, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"README.md": "the workspace of an escapes case\n"}
	for k, v := range c.Setup.Files {
		files[k] = p.expand(v)
	}
	for name, content := range files {
		path := filepath.Join(p.ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range c.Setup.Symlinks {
		path := filepath.Join(p.ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p.expand(target), path); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Commit(t, p.ws, "the workspace")
	for _, name := range c.Setup.Fifos {
		if err := syscall.Mkfifo(filepath.Join(p.ws, filepath.FromSlash(name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := map[string]string{"o-file.txt": outsideToken + "\n"}
	for k, v := range c.Setup.Outside {
		outside[k] = p.expand(v)
	}
	for name, content := range outside {
		path := filepath.Join(p.outside, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := os.Lchown(path, outsideOwner, outsideOwner); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(path, outsideMtime, outsideMtime); err != nil {
			t.Fatal(err)
		}
	}
}

// workflow is the script: one agent() call per child, one after the
// other, each failure caught so that the later children still run.
func workflow(c escapeCase, mode string) string {
	var sb strings.Builder
	sb.WriteString("export const meta = { name: 'escape', description: 'a hostile child, scripted' }\nconst out = []\n")
	for i := range c.Children {
		opts := "{}"
		if c.isolated(i, mode) {
			opts = "{ isolation: 'worktree' }"
		}
		fmt.Fprintf(&sb, "try { const r = await agent(%q, %s); out.push(r) } catch (e) { out.push('failed: ' + e.message) }\n",
			childMark(i)+" follow your script", opts)
	}
	sb.WriteString("return out\n")
	return sb.String()
}

// wfrunResult is the part of wfrun's printed result the test reads.
type wfrunResult struct {
	RunID      string          `json:"runId"`
	StopReason string          `json:"stopReason"`
	Value      json.RawMessage `json:"value"`
	Error      json.RawMessage `json:"error"`
}

// runWfrun runs wfrun with args (or the script's run when args is nil) in
// the workspace and returns its stdout, its stderr and, when it did not
// end in time or printed no result, the escape that is.
func runWfrun(t *testing.T, bin string, c escapeCase, p places, baseURL, mode string, script string, args ...string) (string, string, string) {
	agentTimeout, timeout := 60*time.Second, 120*time.Second
	if c.AgentTimeout > 0 {
		agentTimeout = time.Duration(c.AgentTimeout)
	}
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout)
	}
	if args == nil {
		args = []string{script}
	}
	args = append(args, "--provider", "openai", "--sandbox", sandboxOf(mode), "--workspace", p.ws,
		"--agent-timeout", agentTimeout.String(), "--timeout", timeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), timeout+60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = p.ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + p.home, "OPENAI_BASE_URL=" + baseURL,
		"OPENAI_API_KEY=" + secret, "WFRUN_MODEL=gpt-4o-mini", "WFRUN_STATE_DIR=" + p.state, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return stdout.String(), stderr.String(), fmt.Sprintf("wfrun %s did not end within its deadline %v (and a minute): it was killed", args[0], timeout)
	}
	var res wfrunResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || res.StopReason == "" {
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("cannot run wfrun: %v", err)
		}
		return stdout.String(), stderr.String(), fmt.Sprintf("wfrun %s printed no result (%v, %v)", args[0], err, jerr)
	}
	return stdout.String(), stderr.String(), ""
}

// resume runs `wfrun resume` on the case's run and returns the escape if
// its result shows the forged value.
func resume(t *testing.T, bin string, c escapeCase, p places, baseURL, mode string) []string {
	runs, _ := filepath.Glob(filepath.Join(p.ws, ".wfrun", "runs", "wf_*"))
	if len(runs) != 1 {
		t.Fatalf("want one run folder in %s, found %v", p.ws, runs)
	}
	id := filepath.Base(runs[0])
	out, stderr, ferr := runWfrun(t, bin, c, p, baseURL, mode, "", "resume", id)
	if strings.Contains(ferr, "deadline") {
		return []string{"resume: " + ferr}
	}
	// A resume that refuses the run (no result) holds: it replayed nothing.
	if forged := p.expand(c.Expect.Resume.Lacks); strings.Contains(out, forged) {
		return []string{fmt.Sprintf("wfrun resume %s returned %q, which a child forged: %s\n%s", id, forged, out, stderr)}
	}
	return nil
}

// probeWord is what the probe's command prints.
const probeWord = "escapes-probe-ok"

// sandboxRefused runs one child whose Bash call prints probeWord under the
// workspace-write sandbox, and returns the tool result when the word is
// missing: wfrun refused the command (no Landlock, no namespaces), and
// every case would hold without testing anything.
func sandboxRefused(t *testing.T, bin string) string {
	c := escapeCase{Name: "probe", Children: []child{{Calls: []toolCall{{Tool: "Bash", Arguments: map[string]any{"command": "echo " + probeWord}}}}}}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := newPlaces(t, root)
	layOut(t, c, p)
	st := newStub(t, p, c.Children)
	script := filepath.Join(p.home, "probe.js")
	if err := os.WriteFile(script, []byte(workflow(c, modeWorkspaceWrite)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, ferr := runWfrun(t, bin, c, p, st.URL+"/v1", modeWorkspaceWrite, script); ferr != "" {
		t.Fatalf("the probe run failed: %s\n%s", ferr, stderr)
	}
	for _, r := range st.toolResults() {
		if strings.Contains(r.content, probeWord) {
			return ""
		}
		return r.content
	}
	return "the probe's Bash call got no result"
}
