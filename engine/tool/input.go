package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/strictjson"
	"github.com/wfrun/wfrun/meta"
)

// The limits of the background tools' waits.
const (
	DefaultWaitMs = 30_000  // workflow_wait without timeoutMs
	MaxWaitMs     = 600_000 // the longest workflow_wait
)

// WorkflowInput is the input of the workflow tool.
type WorkflowInput struct {
	Script          string          `json:"script,omitempty" jsonschema_description:"The workflow's JavaScript source. Start it with export const meta = { name, description } unless you pass meta. One of script, scriptPath and name is required."`
	ScriptPath      string          `json:"scriptPath,omitempty" jsonschema_description:"A .js file in the workspace (relative to it) to run instead of script: write the script to a file, run it, edit the file and call again. Wins over script and name."`
	Name            string          `json:"name,omitempty" jsonschema_description:"The name of a saved workflow to run (see the list at the end of this description); script and scriptPath win over it."`
	Meta            json.RawMessage `json:"meta,omitempty" jsonschema_description:"The workflow's meta as data, for a script without export const meta: {name, description, whenToUse?, model?, phases?}. If both are given they must be equal."`
	Args            json.RawMessage `json:"args,omitempty" jsonschema_description:"Any JSON value; the script reads it as the global args, verbatim."`
	MaxTotalAgents  int             `json:"maxTotalAgents,omitempty" jsonschema:"minimum=0" jsonschema_description:"The most agent() calls the run may make (default and ceiling 1000); one more is fatal (AGENT_CAP). 0 means the default."`
	BudgetTokens    int64           `json:"budgetTokens,omitempty" jsonschema:"minimum=0" jsonschema_description:"The run's token budget (input plus output tokens of its agents); agent() past it is fatal (BUDGET_EXHAUSTED). 0 means none."`
	TimeoutMs       int64           `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"The run's deadline in milliseconds (default one hour); past it the run ends with TIMEOUT. 0 means the default."`
	Background      bool            `json:"background,omitempty" jsonschema_description:"true: start the run and return {runId} at once; follow it with workflow_status, workflow_wait and workflow_cancel."`
	ResumeFromRunId string          `json:"resumeFromRunId,omitempty" jsonschema:"pattern=^wf_" jsonschema_description:"Resume an earlier run of yours that failed or was stopped: its unchanged agent() calls that had finished return their journaled answers at no cost, the rest run. Pass the script again (fixed, if it was wrong). Only when the host keeps runs."`
}

// RalphInput is the input of the ralph tool.
type RalphInput struct {
	Objective       string `json:"objective" jsonschema:"minLength=1" jsonschema_description:"What the rounds work toward, and how to tell it is done. Each round sees only this, the last handoff and the workspace."`
	MaxRounds       int    `json:"maxRounds,omitempty" jsonschema:"minimum=0,maximum=1000" jsonschema_description:"The most rounds (default 10); reaching it ends the loop budget-limited."`
	BudgetTokens    int64  `json:"budgetTokens,omitempty" jsonschema:"minimum=0" jsonschema_description:"The loop's token budget; once spent, the loop ends budget-limited before the next round. 0 means none."`
	ResumeFromRunId string `json:"resumeFromRunId,omitempty" jsonschema:"pattern=^wf_" jsonschema_description:"Resume a stopped loop of yours: the rounds it finished are replayed and it goes on at the next one. Give the same objective."`
}

// AgentInput is the input of the agent tool.
type AgentInput struct {
	Prompt    string          `json:"prompt" jsonschema:"minLength=1" jsonschema_description:"The whole task. The sub-agent sees nothing but this prompt: include every fact, file name and constraint it needs."`
	AgentType string          `json:"agentType,omitempty" jsonschema_description:"The persona to run the sub-agent as (see the tool's description for the names). Default: a general worker."`
	Schema    json.RawMessage `json:"schema,omitempty" jsonschema_description:"A JSON Schema with an object root for a structured answer; the result is then the validated object."`
	Model     string          `json:"model,omitempty" jsonschema_description:"The model to run the sub-agent on. Default: the host's."`
	Tools     []string        `json:"tools,omitempty" jsonschema_description:"Names of the tools the sub-agent may use; narrows its default set, never widens it."`
}

// RunIDInput is the input of workflow_status.
type RunIDInput struct {
	RunID string `json:"runId" jsonschema:"pattern=^wf_" jsonschema_description:"The run's id, as returned by workflow with background: true (\"wf_…\")."`
}

// WaitInput is the input of workflow_wait.
type WaitInput struct {
	RunID     string `json:"runId" jsonschema:"pattern=^wf_" jsonschema_description:"The run's id (\"wf_…\")."`
	TimeoutMs int64  `json:"timeoutMs,omitempty" jsonschema:"minimum=0,maximum=600000" jsonschema_description:"How long to wait in milliseconds: default 30000, at most 600000. When it passes first, the run's status is returned and the run goes on."`
}

// CancelInput is the input of workflow_cancel.
type CancelInput struct {
	RunID  string `json:"runId" jsonschema:"pattern=^wf_" jsonschema_description:"The run's id (\"wf_…\")."`
	Reason string `json:"reason,omitempty" jsonschema_description:"Why it is cancelled; shown in the run's error."`
}

// ListInput is the input of workflow_list: nothing.
type ListInput struct{}

// inputSchema generates the JSON Schema of v's type: no references, no
// unknown properties, a description on every field.
func inputSchema(v any) json.RawMessage {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.Reflect(v)
	s.Version = ""
	if s.Properties != nil {
		if p, ok := s.Properties.Get("meta"); ok {
			metaSchema(p)
		}
		if p, ok := s.Properties.Get("args"); ok {
			p.Type = "" // any JSON value
		}
		if p, ok := s.Properties.Get("schema"); ok {
			p.Type = "object"
		}
	}
	if s.Type == "" {
		s.Type = "object"
	}
	if s.Properties == nil || s.Properties.Len() == 0 {
		s.Properties = jsonschema.NewProperties()
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool: cannot marshal the input schema of %T: %v", v, err))
	}
	return b
}

// metaSchema makes p the schema of WorkflowMeta, keeping p's description.
func metaSchema(p *jsonschema.Schema) {
	var ms jsonschema.Schema
	if err := json.Unmarshal(meta.Schema(), &ms); err != nil {
		panic("tool: the schema of WorkflowMeta does not parse: " + err.Error())
	}
	desc := p.Description
	*p = ms
	p.Version, p.ID, p.Title, p.Description = "", "", "", desc
}

// decode reads a tool's JSON input into v, refusing unknown fields and
// values of the wrong type with a sentence that names the field and lists
// the tool's fields. An empty input or null is an empty object.
func decode(tool Name, input json.RawMessage, v any) error {
	input = bytes.TrimSpace(input)
	if len(input) == 0 || string(input) == "null" {
		input = []byte("{}")
	}
	input = dropClientFields(input)
	err := strictjson.Decode(input, v)
	if err == nil {
		return nil
	}
	fields := fieldNames(v)
	p := strictjson.Explain(err, v)
	switch p.Kind {
	case strictjson.UnknownField:
		return errorf(engine.CodeInvalidRequest,
			"the %s tool has no field %q; its fields are %s", tool, p.Field, listAnd(fields))
	case strictjson.WrongRoot:
		return errorf(engine.CodeInvalidRequest, "the %s tool's input must be a JSON object with the fields %s, not a JSON %s", tool, listAnd(fields), p.Got)
	case strictjson.WrongField:
		return errorf(engine.CodeInvalidRequest, "the %s tool's field %s must be %s, not a JSON %s",
			tool, p.Field, p.Want, p.Got)
	case strictjson.Syntax:
		return errorf(engine.CodeInvalidRequest, "the %s tool's input is not valid JSON (%v at byte %d); send one JSON object", tool, err, p.Offset)
	case strictjson.Truncated:
		return errorf(engine.CodeInvalidRequest, "the %s tool's input is not valid JSON: it ends in the middle of a value; send one complete JSON object", tool)
	case strictjson.Trailing:
		return errorf(engine.CodeInvalidRequest, "the %s tool's input has text after its JSON object; send one JSON object of %s", tool, listAnd(fields))
	}
	return errorf(engine.CodeInvalidRequest, "the %s tool's input is not a JSON object of %s: %v", tool, listAnd(fields), err)
}

// ClientFields are the fields that known MCP clients add to every tool's
// input schema on their own, and send along when the model uses them. Every
// tool accepts and ignores them; any other unknown field is still refused,
// so a typo keeps its sentence.
var ClientFields = map[string]string{
	"wait_for_previous": "Gemini CLI adds it to every tool, to order a model's parallel calls",
}

// dropClientFields returns input without the top-level ClientFields. Input
// that is not a JSON object, or has none of them, is returned as it is.
func dropClientFields(input []byte) []byte {
	found := false
	for name := range ClientFields {
		if bytes.Contains(input, []byte(`"`+name+`"`)) {
			found = true
		}
	}
	if !found {
		return input
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		return input
	}
	for name := range ClientFields {
		delete(obj, name)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return input
	}
	return out
}

// waitTimeout is the wait a tool's timeoutMs asks for: DefaultWaitMs when
// it is left out, refused when negative or above MaxWaitMs.
func waitTimeout(tool Name, ms int64) (int64, error) {
	switch {
	case ms < 0:
		return 0, errorf(engine.CodeInvalidRequest, "timeoutMs must not be negative; leave it out to wait %d ms", DefaultWaitMs)
	case ms > MaxWaitMs:
		return 0, errorf(engine.CodeInvalidRequest, "timeoutMs is %d; %s waits at most %d ms (10 minutes): call it again to wait longer", ms, tool, MaxWaitMs)
	case ms == 0:
		return DefaultWaitMs, nil
	}
	return ms, nil
}

// checkSchemaRoot refuses a schema field that is not a JSON object before
// anything starts; the schema itself is checked where it is used.
func checkSchemaRoot(schema json.RawMessage) error {
	if sch := bytes.TrimSpace(schema); len(sch) > 0 && sch[0] != '{' {
		return errorf(engine.CodeUnsupportedSchema,
			"schema must be a JSON Schema object with an object root, e.g. {\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\"}},\"required\":[\"answer\"]}")
	}
	return nil
}

// fieldNames lists the JSON names of v's struct fields.
func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// listAnd renders a, b and c.
func listAnd(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// errorf returns an *engine.Error with a formatted sentence.
func errorf(code engine.ErrorCode, format string, args ...any) *engine.Error {
	return &engine.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
