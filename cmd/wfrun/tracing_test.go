package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/otlptest"
)

// spansByName indexes what a collector received.
func spansByName(spans []otlptest.Span) map[string][]otlptest.Span {
	m := map[string][]otlptest.Span{}
	for _, s := range spans {
		m[s.Name] = append(m[s.Name], s)
	}
	return m
}

func TestTheBinaryExportsItsRunToTheCollectorOfTheOTELVariables(t *testing.T) {
	bin := buildWfrun(t)
	col := otlptest.New(t)
	cmd := exec.Command(bin, "testdata/phased.js")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"WFRUN_STATE_DIR=" + t.TempDir(), // the run's key: never the user's state folder
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.Endpoint(),
		"OTEL_SERVICE_NAME=wfrun-e2e",
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // a traced parent started us
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wfrun: %v\n%s", err, out)
	}
	var res struct{ RunID, StopReason string }
	if err := json.Unmarshal(out, &res); err != nil || res.StopReason != "completed" {
		t.Fatalf("result %s (%v)", out, err)
	}
	// The binary has exited: everything it exported has arrived.
	spans := spansByName(col.Spans())
	root, phase, agents := spans["invoke_workflow phased"], spans["phase Gather"], spans["invoke_agent note 1"]
	if len(root) != 1 || len(phase) != 1 || len(agents) != 1 || len(spans["invoke_agent note 2"]) != 1 {
		t.Fatalf("the collector got %v", spans)
	}
	r := root[0]
	if r.TraceID() != "4bf92f3577b34da6a3ce929d0e0e4736" || r.ParentID() != "00f067aa0ba902b7" {
		t.Errorf("the run is in trace %s under %s, not under TRACEPARENT", r.TraceID(), r.ParentID())
	}
	if r.Attr("wfrun.run.id") != res.RunID || r.Attr("wfrun.provider") != "fake" || r.Resource["service.name"] != "wfrun-e2e" {
		t.Errorf("run attributes %v, resource %v", r.Attributes, r.Resource)
	}
	if phase[0].ParentID() != r.SpanID() || agents[0].ParentID() != phase[0].SpanID() {
		t.Errorf("the agent is not under its phase under the run")
	}
	if agents[0].Attr("gen_ai.operation.name") != "invoke_agent" || agents[0].Attr("wfrun.agent.outcome") != "completed" {
		t.Errorf("agent attributes %v", agents[0].Attributes)
	}
}

func TestTheOTLPEndpointFlagTracesAnOpenAIRunWithItsToolCall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server and builds an MCP server")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "calculator.json"))
	mcpConfig := calculatorMCPConfig(t)
	col := otlptest.New(t)
	o := invoke(t, call{
		args:    []string{"../../scripts/examples/calculator.js", "--provider", "openai", "--mcp-config", mcpConfig, "--otlp-endpoint", col.Endpoint()},
		environ: map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "mock", "WFRUN_MODEL": "gpt-4o-mini"},
	})
	o.wantCode(t, exitCompleted)
	spans := spansByName(col.Spans())
	agent, tool, chats := spans["invoke_agent add"], spans["execute_tool mcp__calc__add"], spans["chat gpt-4o-mini"]
	if len(agent) != 1 || len(tool) != 1 || len(chats) != 2 {
		t.Fatalf("the collector got %v", spans)
	}
	if tool[0].ParentID() != agent[0].SpanID() || chats[0].ParentID() != agent[0].SpanID() {
		t.Errorf("the tool call and the turns are not the agent's children")
	}
	if agent[0].Attr("gen_ai.usage.input_tokens") != "280" || agent[0].Attr("gen_ai.output.type") != "json" ||
		tool[0].Attr("gen_ai.tool.name") != "mcp__calc__add" {
		t.Errorf("agent %v, tool %v", agent[0].Attributes, tool[0].Attributes)
	}
}

func TestTraceConfigurationMistakesAreBadInvocations(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		environ map[string]string
		want    string
	}{
		{"an endpoint without a scheme", []string{"testdata/hello.js", "--otlp-endpoint", "localhost:4318"}, nil, "write one like http://localhost:4318"},
		{"an empty endpoint", []string{"testdata/hello.js", "--otlp-endpoint", ""}, nil, "--otlp-endpoint is empty"},
		{"the grpc protocol", []string{"testdata/hello.js"},
			map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "http/protobuf"},
		{"check has nothing to trace", []string{"check", "testdata/hello.js", "--otlp-endpoint", "http://127.0.0.1:4318"}, nil,
			"--otlp-endpoint does not apply to check"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := invoke(t, call{args: c.args, environ: c.environ})
			o.wantCode(t, exitUsage)
			if o.stdout != "" || !strings.Contains(o.stderr, c.want) {
				t.Errorf("stdout %q, stderr %q; want a sentence with %q", o.stdout, o.stderr, c.want)
			}
		})
	}
}

func TestACollectorThatIsDownCostsANoticeNotTheRun(t *testing.T) {
	col := otlptest.New(t)
	col.Close()
	o := invoke(t, call{args: []string{"testdata/hello.js", "--otlp-endpoint", col.Endpoint()}})
	o.wantCode(t, exitCompleted)
	if n := strings.Count(o.stderr, "wfrun: traces:"); n != 1 {
		t.Errorf("%d trace notices on stderr, want one:\n%s", n, o.stderr)
	}
}

func TestAResumedRunIsExportedToTheCollector(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	first := inRuns(t, runs, "testdata/hello.js")
	first.wantCode(t, exitCompleted)
	id := first.result(t).RunID
	col := otlptest.New(t)
	again := inRuns(t, runs, "resume", id, "--otlp-endpoint", col.Endpoint())
	again.wantCode(t, exitCompleted)
	// The command has returned: its tracer has sent what it buffered.
	roots := spansByName(col.Spans())["invoke_workflow hello"]
	if len(roots) != 1 || roots[0].Attr("wfrun.run.id") != again.result(t).RunID {
		t.Fatalf("the resumed run's spans at the collector: %v", col.Spans())
	}
}
