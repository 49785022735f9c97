package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
)

func calc(args ...string) Server {
	return Server{Type: TransportStdio, Command: testmcp, Args: args}
}

// open starts a toolbox for cfg and closes it when the test ends.
func open(t *testing.T, servers map[string]Server) *Toolbox {
	t.Helper()
	tb, err := New(context.Background(), Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return tb
}

func call(t *testing.T, tb *Toolbox, name, args string) string {
	t.Helper()
	out, err := tb.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", name, args, err)
	}
	return out
}

func names(t *testing.T, tb *Toolbox) []string {
	t.Helper()
	tools, err := tb.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, tool := range tools {
		ns = append(ns, tool.Name)
	}
	return ns
}

func TestToolsListsEveryToolAsMcpServerTool(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	tools, err := tb.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := names(t, tb)
	for _, want := range []string{"mcp__calc__add", "mcp__calc__echo", "mcp__calc__fail", "mcp__calc__stats"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	i := slices.Index(got, "mcp__calc__add")
	add := tools[i]
	if add.Description != "Adds two numbers." {
		t.Errorf("description %q", add.Description)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(add.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["a"] == nil || schema.Properties["b"] == nil {
		t.Errorf("input schema %s", add.InputSchema)
	}
}

func TestToolsAreListedOnceAndCached(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	first, second := names(t, tb), names(t, tb)
	if !slices.Equal(first, second) {
		t.Errorf("the second listing differs: %v, %v", first, second)
	}
	if got := call(t, tb, "mcp__calc__stats", `{}`); got != "tools/list: 1" {
		t.Errorf("the server saw %q, want one tools/list", got)
	}
}

func TestCallRunsTheToolAndReturnsItsText(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	if got := call(t, tb, "mcp__calc__add", `{"a": 2, "b": 3}`); got != "5" {
		t.Errorf("add = %q, want 5", got)
	}
	if got := call(t, tb, "mcp__calc__echo", `{"text": "héllo"}`); got != "héllo" {
		t.Errorf("echo = %q", got)
	}
}

func TestEmptyOrNullArgumentsMeanAnEmptyObject(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	for _, args := range []string{"", "null", "  {} "} {
		if got := call(t, tb, "mcp__calc__pid", args); got == "" {
			t.Errorf("pid with %q gave nothing", args)
		}
	}
}

func TestCallDescribesNonTextContentBriefly(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	got := call(t, tb, "mcp__calc__picture", `{}`)
	if want := "a red dot\n[image: image/png, 18 bytes]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAFailingToolIsAToolErrorWithItsMessage(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	_, err := tb.Call(context.Background(), "mcp__calc__fail", nil)
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *ToolError", err)
	}
	if !strings.Contains(err.Error(), "this tool always fails") {
		t.Errorf("message %q", err)
	}
	// The session survives a failing tool.
	if got := call(t, tb, "mcp__calc__add", `{"a": 1, "b": 1}`); got != "2" {
		t.Errorf("add after fail = %q", got)
	}
}

func TestAnUnknownToolIsAnErrorListingTheAvailableOnes(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	_, err := tb.Call(context.Background(), "mcp__calc__mul", json.RawMessage(`{}`))
	if !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "mcp__calc__add") {
		t.Errorf("got %v", err)
	}
}

func TestArgumentsThatAreNotAnObjectAreRefused(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	for _, args := range []string{`[1, 2]`, `{"a": 1`, `"a"`} {
		_, err := tb.Call(context.Background(), "mcp__calc__add", json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
			t.Errorf("args %s: got %v", args, err)
		}
	}
}

func TestArgumentsOfTheWrongTypeAreAToolFailure(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	if _, err := tb.Call(context.Background(), "mcp__calc__add", json.RawMessage(`{"a": "two", "b": 3}`)); err == nil {
		t.Error("add accepted a string")
	}
}

func TestEnvFromTheConfigReachesTheServer(t *testing.T) {
	s := calc()
	s.Env = map[string]string{"WFRUN_MCP_TEST": "from config"}
	tb := open(t, map[string]Server{"calc": s})
	if got := call(t, tb, "mcp__calc__env", `{"name": "WFRUN_MCP_TEST"}`); got != "from config" {
		t.Errorf("got %q", got)
	}
	// The rest of wfrun's environment is inherited.
	if got := call(t, tb, "mcp__calc__env", `{"name": "PATH"}`); got == "" {
		t.Error("PATH was not inherited")
	}
}

func TestServersWhoseNamesCollideGetNumberedToolNames(t *testing.T) {
	tb := open(t, map[string]Server{"a.b": calc(), "a_b": calc()})
	got := names(t, tb)
	if !slices.Contains(got, "mcp__a_b__add") || !slices.Contains(got, "mcp__a_b__add_2") {
		t.Fatalf("names %v", got)
	}
	// Each name reaches its own server process.
	if call(t, tb, "mcp__a_b__pid", "") == call(t, tb, "mcp__a_b__pid_2", "") {
		t.Error("both names reached the same server")
	}
}

func TestADisabledServerIsNotStarted(t *testing.T) {
	tb := open(t, map[string]Server{
		"calc":  calc(),
		"ghost": {Type: TransportStdio, Command: "/nonexistent/wfrun-mcp-ghost", Disabled: true},
	})
	for _, n := range names(t, tb) {
		if strings.HasPrefix(n, "mcp__ghost__") {
			t.Errorf("tool %s of a disabled server", n)
		}
	}
}

func TestAServerThatCannotStartIsAnErrorNamingIt(t *testing.T) {
	_, err := New(context.Background(), Config{Servers: map[string]Server{
		"calc":  calc(),
		"ghost": {Type: TransportStdio, Command: "/nonexistent/wfrun-mcp-ghost"},
	}})
	var se *ServerError
	if !errors.As(err, &se) || se.Server != "ghost" {
		t.Fatalf("got %v, want a *ServerError for ghost", err)
	}
	if !strings.Contains(err.Error(), `MCP server "ghost"`) || !strings.Contains(err.Error(), "wfrun-mcp-ghost") {
		t.Errorf("%q", err)
	}
	// The server that did start was stopped again.
	if kids := childProcesses(t); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
}

func TestAServerThatExitsAtOnceIsAnErrorWithItsStderr(t *testing.T) {
	_, err := New(context.Background(), Config{Servers: map[string]Server{
		"calc": calc("-crash", "calc: OPENAI_API_KEY is not set"),
	}})
	if err == nil || !strings.Contains(err.Error(), `MCP server "calc"`) ||
		!strings.Contains(err.Error(), "its stderr ends with: calc: OPENAI_API_KEY is not set") {
		t.Errorf("got %v", err)
	}
}

func TestAServerThatNeverAnswersTimesOut(t *testing.T) {
	timer := loadbound.Start(t)
	_, err := New(context.Background(), Config{
		Servers:      map[string]Server{"mute": {Type: TransportStdio, Command: "sleep", Args: []string{"60"}}},
		StartTimeout: 200 * time.Millisecond,
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"mute"`) {
		t.Errorf("got %v", err)
	}
	// sleep ignores its closed stdin, so it is signalled after terminateAfter.
	if took := timer.Stop(); took.Over(4 * terminateAfter) {
		t.Errorf("New took %v", took)
	}
	if kids := childProcesses(t); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
}

func TestConcurrentCallsEachGetTheirOwnAnswer(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range 8 {
		wg.Go(func() {
			if _, err := tb.Tools(context.Background()); err != nil {
				errs[i] = err
				return
			}
			out, err := tb.Call(context.Background(), "mcp__calc__add", json.RawMessage(fmt.Sprintf(`{"a": %d, "b": %d}`, i, i)))
			if err == nil && out != strconv.Itoa(2*i) {
				err = fmt.Errorf("add(%d, %d) = %q", i, i, out)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Error(err)
	}
}

func TestCancellingACallReturnsPromptlyAndKeepsTheServer(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	timer := loadbound.Start(t)
	_, err := tb.Call(ctx, "mcp__calc__sleep", json.RawMessage(`{"ms": 30000}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
	if took := timer.Stop(); took.Over(5 * time.Second) {
		t.Errorf("the call took %v", took)
	}
	if got := call(t, tb, "mcp__calc__add", `{"a": 2, "b": 2}`); got != "4" {
		t.Errorf("add after a cancelled call = %q", got)
	}
}

func TestCloseStopsTheServerProcessAndItsGoroutines(t *testing.T) {
	before := goleak.IgnoreCurrent()
	tb, err := New(context.Background(), Config{Servers: map[string]Server{"calc": calc()}})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(call(t, tb, "mcp__calc__pid", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server process %d: kill -0 gave %v, want ESRCH", pid, err)
	}
	if kids := childProcesses(t); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
	goleak.VerifyNone(t, append(leaktest.Options(), before)...)

	if _, err := tb.Call(context.Background(), "mcp__calc__add", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close: %v", err)
	}
	if _, err := tb.Tools(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Tools after Close: %v", err)
	}
	if err := tb.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestAServerThatDiesMidRunFailsCallsWithItsStderr(t *testing.T) {
	tb := open(t, map[string]Server{"calc": calc()})
	pid, _ := strconv.Atoi(call(t, tb, "mcp__calc__pid", ""))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := tb.Call(context.Background(), "mcp__calc__add", json.RawMessage(`{"a": 1, "b": 1}`))
		var se *ServerError
		if errors.As(err, &se) && se.Server == "calc" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls to a killed server: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// remote starts an in-process MCP server with one tool over handler and
// returns its URL and the Authorization headers it saw.
func remote(t *testing.T, handler func(func(*http.Request) *mcp.Server) http.Handler) (string, func() []string) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "hello"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Who string `json:"who"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, " + in.Who}}}, nil, nil
	})
	h := handler(func(*http.Request) *mcp.Server { return s })
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(auth) }
}

func TestRemoteServersOverStreamableHTTPAndSSE(t *testing.T) {
	cases := []struct {
		transport Transport
		handler   func(func(*http.Request) *mcp.Server) http.Handler
	}{
		{TransportHTTP, func(f func(*http.Request) *mcp.Server) http.Handler { return mcp.NewStreamableHTTPHandler(f, nil) }},
		{TransportSSE, func(f func(*http.Request) *mcp.Server) http.Handler { return mcp.NewSSEHandler(f, nil) }},
	}
	for _, tc := range cases {
		t.Run(string(tc.transport), func(t *testing.T) {
			url, seen := remote(t, tc.handler)
			tb := open(t, map[string]Server{"web": {Type: tc.transport, URL: url, Headers: map[string]string{"Authorization": "Bearer t0ken"}}})
			if got := call(t, tb, "mcp__web__hello", `{"who": "wfrun"}`); got != "hello, wfrun" {
				t.Errorf("got %q", got)
			}
			for _, a := range seen() {
				if a != "Bearer t0ken" {
					t.Errorf("a request had Authorization %q", a)
				}
			}
		})
	}
}

func TestAnUnreachableRemoteServerIsAnErrorNamingIt(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	_, err := New(context.Background(), Config{Servers: map[string]Server{"web": {Type: TransportHTTP, URL: url}}})
	if err == nil || !strings.Contains(err.Error(), `MCP server "web"`) || !strings.Contains(err.Error(), url) {
		t.Errorf("got %v", err)
	}
}

func TestCloseDoesNotWaitForCallsInFlight(t *testing.T) {
	tb, err := New(context.Background(), Config{Servers: map[string]Server{"calc": calc()}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tb.Call(context.Background(), "mcp__calc__sleep", json.RawMessage(`{"ms": 30000}`))
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the call reach the server
	timer := loadbound.Start(t)
	if err := tb.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("the call in flight got %v, want ErrClosed", err)
	}
	if took := timer.Stop(); took.Over(4 * terminateAfter) {
		t.Errorf("Close took %v", took)
	}
}
