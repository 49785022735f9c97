package ui_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/ui"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs (WFRUN_TEST_ISOLATE=process) re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

// beat is the heartbeat of the tests' engines: a stop applied from another
// engine lands within it.
const beat = 20 * time.Millisecond

// rig is a runs folder, the engine the page reads it with, and the page.
type rig struct {
	t    *testing.T
	runs string
	eng  *engine.Engine
	srv  *ui.Server
	h    http.Handler
}

func newRig(t *testing.T, cfg ui.Config, rules string) *rig {
	t.Helper()
	r := &rig{t: t, runs: filepath.Join(t.TempDir(), "runs")}
	return r.serve(cfg, r.engine(rules))
}

// newPlainRig is newRig whose page's engine checks no event streams: a
// run continued in place emits a second stream under the same run id,
// which the shared checker would take for one broken stream.
func newPlainRig(t *testing.T, cfg ui.Config) *rig {
	t.Helper()
	r := &rig{t: t, runs: filepath.Join(t.TempDir(), "runs")}
	eng, err := engine.New(engine.Config{RunsDir: r.runs, Heartbeat: beat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.CloseTimeout)
		defer cancel()
		if err := eng.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r.serve(cfg, eng)
}

func (r *rig) serve(cfg ui.Config, eng *engine.Engine) *rig {
	r.t.Helper()
	t := r.t
	r.eng = eng
	cfg.Engine = r.eng
	cfg.Poll = 20 * time.Millisecond
	srv, err := ui.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.srv, r.h = srv, srv.Handler()
	return r
}

// engine returns another engine on the rig's runs folder: another process,
// as far as the ledger can tell.
func (r *rig) engine(rules string) *engine.Engine {
	r.t.Helper()
	cfg := engine.Config{RunsDir: r.runs, Heartbeat: beat}
	if rules != "" {
		parsed, err := fake.Parse([]byte(rules))
		if err != nil {
			r.t.Fatal(err)
		}
		cfg.FakeRules = parsed
	}
	return enginetest.New(r.t, cfg)
}

// run runs a script to its end on eng.
func (r *rig) run(eng *engine.Engine, script, args string, concurrency int) engine.WorkflowResult {
	r.t.Helper()
	req := engine.WorkflowStartRequest{Script: script, Parent: "test", Concurrency: concurrency}
	if args != "" {
		req.Args = json.RawMessage(args)
	}
	res, _ := enginetest.Run(r.t, eng, req)
	return res
}

// review runs testdata/review.js, the fixture with phases, a failure, a
// timeout and schema answers, on the rig's engine.
func (r *rig) review() engine.WorkflowResult {
	r.t.Helper()
	return r.run(r.eng, readFile(r.t, "testdata/review.js"), readFile(r.t, "testdata/review.args.json"), 3)
}

// abandoned records a run whose process died: begun in the ledger with a
// lease that has run out, which the page's next sweep finds.
func (r *rig) abandoned(id, name string) {
	r.t.Helper()
	l, err := ledger.Open(filepath.Join(r.runs, "ledger.db"), ledger.Options{Lease: time.Millisecond})
	if err != nil {
		r.t.Fatal(err)
	}
	defer l.Close()
	if err := l.Begin(r.t.Context(), ledger.Run{ID: id, Owner: "test", Name: name}); err != nil {
		r.t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// answer is one response of the handler.
type answer struct {
	code   int
	header http.Header
	body   string
}

func (r *rig) do(req *http.Request) answer {
	r.t.Helper()
	if req.Host == "example.com" || req.Host == "" {
		req.Host = "127.0.0.1:7777"
	}
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	return answer{code: w.Code, header: w.Header(), body: w.Body.String()}
}

func (r *rig) get(path string) answer {
	r.t.Helper()
	return r.do(httptest.NewRequest(http.MethodGet, path, nil))
}

// post sends a verb as the page's script does: a same-origin form POST.
func (r *rig) post(path string, form url.Values) answer {
	r.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", "http://127.0.0.1:7777")
	return r.do(req)
}

// verbAnswer is the JSON of a verb's answer.
type verbAnswer struct {
	OK       bool   `json:"ok"`
	RunID    string `json:"runId"`
	NewRunID string `json:"newRunId"`
	Status   string `json:"status"`
	Message  string `json:"message"`
	Error    string `json:"error"`
}

func (a answer) verb(t *testing.T) verbAnswer {
	t.Helper()
	var v verbAnswer
	if err := json.Unmarshal([]byte(a.body), &v); err != nil {
		t.Fatalf("the verb's answer is not JSON (%v): %d %s", err, a.code, a.body)
	}
	return v
}

// doc parses a page.
func (a answer) doc(t *testing.T) *html.Node {
	t.Helper()
	n, err := html.Parse(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// find returns the elements under n for which match holds, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
	}
	return out
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// byClass matches the elements of a class (and of a tag, when tag is not "").
func byClass(tag, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return (tag == "" || n.Data == tag) && hasClass(n, class) }
}

func byID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { return attr(n, "id") == id }
}

// text is the text under n.
func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// readAll reads a response body.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// abandonedAgain sets a settled run's row back to running with a lease that
// has run out, as if its process had died: what Continue is for.
func (r *rig) abandonedAgain(id string) {
	r.t.Helper()
	r.abandoned(id, "")
}
