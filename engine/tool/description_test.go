package tool_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wfrun/wfrun/engine/tool"
)

// examples extracts the fenced js blocks of a description, each with the
// args named on the line before it as "(args: JSON)".
func examples(t *testing.T, desc string) []map[string]any {
	t.Helper()
	block := regexp.MustCompile("(?s)(?:\\(args: ([^\\n]*)\\)[^\\n]*\\n)?```js\\n(.*?)```")
	var out []map[string]any
	for _, m := range block.FindAllStringSubmatch(desc, -1) {
		in := map[string]any{"script": m[2]}
		if m[1] != "" {
			var args any
			if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
				t.Fatalf("the args of an example are not JSON (%v): %s", err, m[1])
			}
			in["args"] = args
		}
		out = append(out, in)
	}
	return out
}

func TestDescription_EveryExampleRunsAsWritten(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	def, _ := s.Tool(tool.Workflow)
	exs := examples(t, def.Definition().Description)
	if len(exs) == 0 {
		t.Fatal("the workflow tool's description has no example")
	}
	for i, in := range exs {
		res := call(t, s, tool.Workflow, in)
		if res.IsError || !strings.Contains(res.Text, " completed (") {
			t.Errorf("example %d does not complete:\n%s\n%s", i, in["script"], res.Text)
		}
	}
	if _, ok := exs[0]["args"]; !ok {
		t.Error("the example names no args, so it does not show how args arrive")
	}
}

func TestDescription_CoversWhatAModelMustKnow(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	def, _ := s.Tool(tool.Workflow)
	desc := def.Definition().Description
	for _, topic := range []string{
		"agent tool", "export const meta", "meta parameter", "agent(prompt, opts?)", "null", "agent({prompt",
		"parallel(", "pipeline(items", "Prefer pipeline", "phase(title)", "log(", "args", "budget", "workflow(name",
		"try/catch", "UNSUPPORTED_SCHEMA", "AGENT_CAP", "ITEM_CAP", "object", "Date.now()", "Math.random()", "require",
		"timers", "background", "workflow_wait", "```js",
	} {
		if !strings.Contains(desc, topic) {
			t.Errorf("the description does not mention %q", topic)
		}
	}
}

func TestDescription_TheFirst4096CharactersCarryTheEssentials(t *testing.T) {
	var personas []tool.Persona
	for i := range 12 {
		personas = append(personas, tool.Persona{Name: fmt.Sprintf("persona-%02d", i),
			Description: strings.Repeat("Reviews changes for one concern and reports findings. ", 5)})
	}
	s, _ := newSet(t, "", tool.Options{Personas: personas})
	wf, _ := s.Tool(tool.Workflow)
	desc := wf.Definition().Description
	head := string([]rune(desc)[:min(tool.EssentialChars, utf8.RuneCountInString(desc))])
	for _, essential := range []string{
		"export const meta", "agent(prompt, opts?)", "null", "parallel(", "pipeline(", "ABSENT ON PURPOSE",
		"Date.now()", "Math.random()", "require", "timers", "```js", "return {", "RESULT", "resumeFromRunId", "background",
	} {
		if !strings.Contains(head, essential) {
			t.Errorf("the first %d characters do not carry %q", tool.EssentialChars, essential)
		}
	}
	if !strings.Contains(head, "```js") || strings.Count(head, "```") < 2 {
		t.Error("the example is not whole within the first characters")
	}
	for _, p := range personas {
		if !strings.Contains(head, p.Name) {
			t.Errorf("the first %d characters do not name %s", tool.EssentialChars, p.Name)
		}
	}

	many := make([]tool.Persona, 300)
	for i := range many {
		many[i] = tool.Persona{Name: fmt.Sprintf("a-rather-long-persona-name-%03d", i)}
	}
	s, _ = newSet(t, "", tool.Options{Personas: many})
	wf, _ = s.Tool(tool.Workflow)
	desc = wf.Definition().Description
	head = string([]rune(desc)[:tool.EssentialChars])
	if !strings.Contains(head, "more\n") || !strings.Contains(head, "RESULT") {
		t.Errorf("300 personas crowd the essentials out:\n%s", head)
	}
	if n := utf8.RuneCountInString(desc); n > tool.MaxDescriptionChars {
		t.Errorf("the description with 300 personas is %d characters; the budget is %d", n, tool.MaxDescriptionChars)
	}
}

func TestDescription_ListsThePersonasAndStaysWithinItsBudget(t *testing.T) {
	var personas []tool.Persona
	for i := range 12 {
		personas = append(personas, tool.Persona{Name: fmt.Sprintf("persona-%02d", i),
			Description: strings.Repeat("Reviews changes for one concern and reports findings. ", 5)})
	}
	s, _ := newSet(t, "", tool.Options{Personas: personas})
	wf, _ := s.Tool(tool.Workflow)
	ag, _ := s.Tool(tool.Agent)
	for _, def := range []tool.Definition{wf.Definition(), ag.Definition()} {
		if !strings.Contains(def.Description, "- persona-00: Reviews changes") {
			t.Errorf("%s does not describe the first persona:\n%s", def.Name, def.Description)
		}
		for _, p := range personas {
			if !strings.Contains(def.Description, p.Name) {
				t.Errorf("%s does not name %s", def.Name, p.Name)
			}
		}
	}
	if n := utf8.RuneCountInString(wf.Definition().Description); n > tool.MaxDescriptionChars {
		t.Errorf("the workflow description with %d personas is %d characters; the budget is %d", len(personas), n, tool.MaxDescriptionChars)
	}

	plain, _ := newSet(t, "", tool.Options{})
	d, _ := plain.Tool(tool.Workflow)
	if strings.Contains(d.Definition().Description, "PERSONAS") {
		t.Error("a host without personas lists some")
	}
}

func TestDescription_EndsWithTheSavedWorkflowsWithinItsBudget(t *testing.T) {
	var personas []tool.Persona
	var saved []tool.SavedWorkflow
	for i := range 40 {
		personas = append(personas, tool.Persona{Name: fmt.Sprintf("persona-%02d", i), Description: strings.Repeat("Reviews one concern. ", 8)})
		saved = append(saved, tool.SavedWorkflow{Name: fmt.Sprintf("flow-%02d", i), Description: strings.Repeat("Runs one saved pipeline. ", 8)})
	}
	s, _ := newSet(t, "", tool.Options{Personas: personas, SavedWorkflows: saved})
	wf, _ := s.Tool(tool.Workflow)
	desc := wf.Definition().Description
	if n := utf8.RuneCountInString(desc); n > tool.MaxDescriptionChars {
		t.Errorf("the description is %d characters; the budget is %d", n, tool.MaxDescriptionChars)
	}
	i, j := strings.Index(desc, "SUB-AGENT PERSONAS"), strings.LastIndex(desc, "SAVED WORKFLOWS")
	if i < 0 || j < i || !strings.Contains(desc[j:], "flow-00") || !strings.Contains(desc[j:], "flow-39") {
		t.Errorf("the saved workflows do not end the description:\n%s", desc[max(0, i):])
	}

	few, _ := newSet(t, "", tool.Options{Personas: []tool.Persona{{Name: "reviewer", Description: "Reviews code"}},
		SavedWorkflows: []tool.SavedWorkflow{{Name: "review-launcher", Description: "Launches a review"}, {Name: "pr-iterate", Description: "Iterates on a PR"}}})
	wf, _ = few.Tool(tool.Workflow)
	// Claude Code shows the first EssentialChars: the names are there.
	if head := string([]rune(wf.Definition().Description)[:tool.EssentialChars]); !strings.Contains(head, "SAVED WORKFLOWS (name; described at the end): review-launcher, pr-iterate\n") {
		t.Errorf("the saved workflows are not named within the first %d characters", tool.EssentialChars)
	}
	if desc := wf.Definition().Description; !strings.HasSuffix(desc, "- reviewer: Reviews code\n\nSAVED WORKFLOWS (run one with the name parameter, or with workflow(name) in a script)\n- review-launcher: Launches a review\n- pr-iterate: Iterates on a PR\n") {
		t.Errorf("the description does not end with the saved workflows and their descriptions:\n%s", desc[len(desc)-600:])
	}

	none, _ := newSet(t, "", tool.Options{SavedWorkflows: []tool.SavedWorkflow{}})
	d, _ := none.Tool(tool.Workflow)
	if strings.Contains(d.Definition().Description, "SAVED WORKFLOWS") {
		t.Error("a host with no saved workflows lists some")
	}
}

func TestInputSchema_EveryToolTakesAnObjectAndDescribesEveryField(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	defs := s.Definitions()
	if len(defs) != len(tool.Names()) {
		t.Fatalf("%d definitions, %d names", len(defs), len(tool.Names()))
	}
	for i, def := range defs {
		if def.Name != tool.Names()[i] || def.Description == "" {
			t.Errorf("definition %d: %s", i, def.Name)
		}
		var sch struct {
			Type                 string                     `json:"type"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
		}
		if err := json.Unmarshal(def.InputSchema, &sch); err != nil {
			t.Fatalf("%s: %v", def.Name, err)
		}
		if sch.Type != "object" || sch.AdditionalProperties == nil || *sch.AdditionalProperties || sch.Properties == nil {
			t.Errorf("%s: schema %s", def.Name, def.InputSchema)
		}
		for name, p := range sch.Properties {
			var prop struct{ Description string }
			_ = json.Unmarshal(p, &prop)
			if prop.Description == "" {
				t.Errorf("%s.%s has no description", def.Name, name)
			}
		}
		if strings.Contains(string(def.InputSchema), "$ref") || strings.Contains(string(def.InputSchema), "$schema") {
			t.Errorf("%s: the schema has references: %s", def.Name, def.InputSchema)
		}
	}
	// Claude Code's Workflow tool takes script, scriptPath or name: none
	// of them is required on its own.
	wf, _ := s.Tool(tool.Workflow)
	for _, field := range []string{`"script":`, `"scriptPath":`, `"name":`} {
		if !strings.Contains(string(wf.Definition().InputSchema), field) {
			t.Errorf("the workflow tool lacks %s: %s", field, wf.Definition().InputSchema)
		}
	}
	if strings.Contains(string(wf.Definition().InputSchema), `"required":["script"]`) {
		t.Errorf("script is required, so name and scriptPath cannot be used alone: %s", wf.Definition().InputSchema)
	}
}

func TestInput_FieldsKnownClientsAddAreAcceptedAndIgnored(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	for _, input := range []string{
		`{"script":"return 1","meta":{"name":"t","description":"d"},"wait_for_previous":true}`,
		`{"wait_for_previous":false,"meta":{"name":"t","description":"d"},"script":"return 1"}`,
	} {
		res := s.Call(t.Context(), tool.Workflow, json.RawMessage(input))
		if res.IsError {
			t.Errorf("%s: %s", input, res.Text)
		}
	}
	res := s.Call(t.Context(), tool.WorkflowList, json.RawMessage(`{"wait_for_previous":true}`))
	if res.IsError {
		t.Errorf("workflow_list with wait_for_previous: %s", res.Text)
	}
	res = s.Call(t.Context(), tool.Workflow, json.RawMessage(`{"script":"return 1","wait_for_previus":true}`))
	if !res.IsError || !strings.Contains(res.Text, `no field "wait_for_previus"`) {
		t.Errorf("a misspelt client field was accepted: %s", res.Text)
	}
}

func TestInput_AnUnknownFieldIsRefusedWithASentenceNamingIt(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	for _, tc := range []struct {
		name  tool.Name
		input string
		want  string
	}{
		{tool.Workflow, `{"script":"return 1","scirpt":"x"}`, `the workflow tool has no field "scirpt"; its fields are script, scriptPath, name, meta, args, maxTotalAgents, budgetTokens, timeoutMs, background and resumeFromRunId`},
		{tool.Workflow, `{"script":"return 1","maxTotalAgents":"ten"}`, "maxTotalAgents must be a whole number, not a JSON string"},
		{tool.Workflow, `[1]`, "must be a JSON object"},
		{tool.Workflow, `{"script":`, "not valid JSON"},
		{tool.Workflow, `{"script":"x"} {}`, "text after its JSON object; send one JSON object of script, "},
		{tool.Workflow, `{"script":"x"} ]`, "text after its JSON object"},
		{tool.WorkflowList, `{"all":true}`, `the workflow_list tool has no field "all"; its fields are none`},
		{tool.WorkflowStatus, `{"id":"wf_1"}`, `no field "id"; its fields are runId`},
		{"nope", `{}`, `there is no tool "nope"`},
	} {
		res := s.Call(t.Context(), tc.name, json.RawMessage(tc.input))
		if !res.IsError || !strings.Contains(res.Text, tc.want) || !strings.HasPrefix(res.Text, "INVALID_REQUEST: ") {
			t.Errorf("%s %s: %s", tc.name, tc.input, res.Text)
		}
		if _, ok := res.Structured.(tool.ErrorOutput); !ok {
			t.Errorf("%s %s: structured %T", tc.name, tc.input, res.Structured)
		}
	}
}
