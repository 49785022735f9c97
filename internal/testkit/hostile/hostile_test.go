package hostile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs re-execute this test binary
	leaktest.VerifyTestMain(m)
}

// entry is one hostile script and what its header expects.
type entry struct {
	file      string
	what      string
	code      string // an error code, or "completed"
	within    time.Duration
	timeout   time.Duration // the run's deadline; 0: the engine's
	maxMemory int64
	modes     []string // the isolations it runs in; empty: both
}

func readEntry(t *testing.T, path string) (entry, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e := entry{file: filepath.Base(path)}
	sc := bufio.NewScanner(strings.NewReader(strings.TrimPrefix(string(data), "\uFEFF")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#!") {
			continue
		}
		rest, ok := strings.CutPrefix(line, "// ")
		if !ok {
			break
		}
		key, val, _ := strings.Cut(rest, ": ")
		switch key {
		case "hostile":
			e.what = val
		case "expect":
			code, within, ok := strings.Cut(val, " within ")
			d, err := time.ParseDuration(within)
			if !ok || err != nil {
				t.Fatalf("%s: expect %q: want CODE within DURATION", e.file, val)
			}
			e.code, e.within = code, d
		case "timeout":
			if e.timeout, err = time.ParseDuration(val); err != nil {
				t.Fatalf("%s: timeout %q: %v", e.file, val, err)
			}
		case "max-memory":
			n, unit := int64(0), ""
			fmt.Sscanf(val, "%d%s", &n, &unit)
			e.maxMemory = n << map[string]uint{"MiB": 20, "GiB": 30}[unit]
		case "modes":
			e.modes = strings.Fields(val)
		}
	}
	if e.what == "" || e.code == "" {
		t.Fatalf("%s: its header must say // hostile: … and // expect: CODE within DURATION", e.file)
	}
	return e, string(data)
}

func (e entry) runsIn(mode string) bool {
	if len(e.modes) == 0 {
		return true
	}
	for _, m := range e.modes {
		if m == mode {
			return true
		}
	}
	return false
}

const ordinary = `export const meta = { name: 'ordinary', description: 'what every other run does' }
const xs = await parallel([1, 2, 3].map(i => () => agent('task ' + i)))
return { n: xs.length, joined: xs.join('|'), json: JSON.stringify({ a: [1, 2].map(x => x * 2) }), keys: Object.keys({ q: 1 }) }`

const ordinaryValue = `{"n":3,"joined":"task 1|task 2|task 3","json":"{\"a\":[2,4]}","keys":["q"]}`

func TestHostileScriptsEndTheirRunAndNoOtherWithinTheirBound(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/hostile/*.js")
	if len(files) < 20 {
		t.Fatalf("found %d hostile scripts", len(files))
	}
	mode := "none"
	if enginetest.Isolated() {
		mode = "process"
	}
	for _, path := range files {
		e, src := readEntry(t, path)
		t.Run(strings.TrimSuffix(e.file, ".js"), func(t *testing.T) {
			if !e.runsIn(mode) {
				t.Skipf("runs only with isolation %v: in-process it is a known gap (docs/script-api.md, \"Memory\")", e.modes)
			}
			eng := enginetest.New(t, engine.Config{WorkflowsDir: "../../../testdata/hostile/workflows", MaxMemory: e.maxMemory})
			var wg sync.WaitGroup
			failures := make(chan string, 50)
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, _ := enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: ordinary})
					if res.StopReason != engine.StopCompleted || string(res.Value) != ordinaryValue {
						failures <- fmt.Sprintf("%s %s: %s", res.StopReason, res.Error, res.Value)
					}
				}()
			}
			req := engine.WorkflowStartRequest{Script: src, ScriptName: e.file,
				Meta: []byte(`{"name":"hostile","description":"` + e.what + `"}`)}
			if strings.Contains(src, "export const meta") {
				req.Meta = nil
			}
			if e.timeout > 0 {
				req.TimeoutMs = e.timeout.Milliseconds()
			}
			timer := loadbound.Start(t)
			res, _ := enginetest.Run(t, eng, req)
			took := timer.Stop()
			wg.Wait()
			close(failures)
			for f := range failures {
				t.Errorf("an ordinary run beside it did not complete: %s", f)
			}
			got := string(res.ErrorCode)
			if res.StopReason == engine.StopCompleted {
				got = "completed"
			}
			if got != e.code {
				t.Fatalf("%s ended %s (%s), want %s", e.file, got, res.Error, e.code)
			}
			if bound := e.within * boundScale; took.Over(bound) {
				t.Fatalf("%s took %v; its bound is %v, %v on a machine this loaded", e.file, took, bound, took.Bound(bound))
			}
		})
	}
}
