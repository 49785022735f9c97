package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

func TestMain(m *testing.M) {
	engine.Init() // sandboxed tools re-execute this test binary as the helper
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

// call describes one in-process invocation of wfrun.
type call struct {
	args    []string
	environ map[string]string // nil: no OPENAI_* variables
	stdin   string
	stderr  io.Writer // nil: a buffer
	signals <-chan os.Signal
}

// outcome is what an invocation left behind.
type outcome struct {
	code           int
	stdout, stderr string
}

// wfrun runs the command in process with args and an empty environment.
func wfrun(t *testing.T, args ...string) outcome {
	t.Helper()
	return invoke(t, call{args: args})
}

func invoke(t *testing.T, c call) outcome {
	t.Helper()
	var stdout bytes.Buffer
	stderr := c.stderr
	var buf *syncBuffer
	if stderr == nil {
		buf = &syncBuffer{}
		stderr = buf
	}
	// Runs are kept in the test's own folder unless the call names one:
	// the default, .wfrun/runs, would be in the source tree.
	runsDir := ""
	if _, ok := c.environ["WFRUN_RUNS_DIR"]; !ok {
		runsDir = t.TempDir()
	}
	code := runMain(c.args, env{
		stdin:  strings.NewReader(c.stdin),
		stdout: &stdout,
		stderr: stderr,
		getenv: func(k string) string {
			if k == "WFRUN_RUNS_DIR" && runsDir != "" {
				return runsDir
			}
			if v, ok := c.environ[k]; ok || k != "WFRUN_STATE_DIR" {
				return v
			}
			return os.Getenv(k) // the package's (TestMain): never the user's own
		},
		signals: c.signals,
	})
	out := outcome{code: code, stdout: stdout.String()}
	if buf != nil {
		out.stderr = buf.String()
	} else if s, ok := stderr.(interface{ String() string }); ok {
		out.stderr = s.String()
	}
	return out
}

// result decodes stdout as a WorkflowResult, failing the test if it is not one.
func (o outcome) result(t *testing.T) engine.WorkflowResult {
	t.Helper()
	var res engine.WorkflowResult
	dec := json.NewDecoder(strings.NewReader(o.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout is not a WorkflowResult (%v):\n%s\nstderr:\n%s", err, o.stdout, o.stderr)
	}
	return res
}

// compact returns raw JSON without insignificant space.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return b.String()
}

// wantCode fails the test unless the invocation exited with code.
func (o outcome) wantCode(t *testing.T, code int) {
	t.Helper()
	if o.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, code, o.stdout, o.stderr)
	}
}

// readEvents decodes a JSONL event stream and checks the invariants of
// docs/cli.md ("Events") with the shared checker. Lines that are not events (notices
// on a shared stderr) are skipped.
func readEvents(t *testing.T, text string) []engine.Event {
	t.Helper()
	var evs []engine.Event
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev engine.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event line is not JSON (%v): %s", err, line)
		}
		evs = append(evs, ev)
	}
	if err := eventcheck.Check(evs, eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatalf("event stream breaks an invariant: %v\n%s", err, text)
	}
	return evs
}

// syncBuffer is a goroutine-safe buffer that can announce a substring.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	watch  string
	seen   chan struct{} // closed when watch first appears
	closed bool
}

func watching(s string) *syncBuffer {
	return &syncBuffer{watch: s, seen: make(chan struct{})}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.watch != "" && !b.closed && strings.Contains(b.buf.String(), b.watch) {
		b.closed = true
		close(b.seen)
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// terminal is a syncBuffer that says it is a character device, as a
// terminal's os.File does.
type terminal struct{ syncBuffer }

func (*terminal) Stat() (os.FileInfo, error) { return charDevice{}, nil }

type charDevice struct{}

func (charDevice) Name() string       { return "tty" }
func (charDevice) Size() int64        { return 0 }
func (charDevice) Mode() os.FileMode  { return os.ModeDevice | os.ModeCharDevice | 0o620 }
func (charDevice) ModTime() time.Time { return time.Time{} }
func (charDevice) IsDir() bool        { return false }
func (charDevice) Sys() any           { return nil }
