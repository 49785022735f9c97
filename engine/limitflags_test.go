package engine

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		in   WorkflowStartRequest // the request before Apply
		want WorkflowStartRequest
		err  string
	}{
		{args: nil, in: WorkflowStartRequest{Concurrency: 3, TimeoutMs: 5}, want: WorkflowStartRequest{Concurrency: 3, TimeoutMs: 5}},
		{args: []string{"--max-agents", "20", "--concurrency=4", "--budget-tokens", "200000", "--max-memory", "512MiB",
			"--max-run-folder", "1GiB", "--timeout", "10m", "--agent-timeout", "1500us", "--isolate", "none"},
			in: WorkflowStartRequest{Concurrency: 3},
			want: WorkflowStartRequest{MaxTotalAgents: 20, Concurrency: 4, BudgetTokens: 200000, MaxMemoryBytes: 512 << 20,
				MaxRunFolderBytes: 1 << 30, TimeoutMs: int64(10 * time.Minute / time.Millisecond), AgentTimeoutMs: 2, Isolate: IsolateNone}},
		{args: []string{"--isolate", "thread"}, err: `--isolate "thread" is not an isolation: use --isolate process`},
		{args: []string{"--budget-tokens", "-3"}, err: `--budget-tokens: "-3" is not a positive whole number`},
		{args: []string{"--timeout", "10"}, err: "a duration needs a unit"},
	} {
		var f LimitFlags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Bind(fs)
		err := fs.Parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want one with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		req := tc.in
		f.Apply(&req)
		if !reflect.DeepEqual(req, tc.want) {
			t.Errorf("%v: Apply made %+v, want %+v", tc.args, req, tc.want)
		}
	}
}
