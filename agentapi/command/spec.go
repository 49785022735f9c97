package command

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/strictjson"
)

// The defaults of a Spec's zero fields.
const (
	DefaultName           = "command"
	DefaultMaxOutputBytes = 4 << 20
	DefaultKillGrace      = 2 * time.Second
)

// Where the prompt goes.
const (
	PromptViaStdin = "stdin" // the prompt is the child's standard input (the default)
	PromptViaArg   = "arg"   // the prompt replaces {prompt} in argv; stdin is empty
)

// How stdout is read.
const (
	FormatText = "text" // stdout, trimmed of surrounding white space, is the answer (the default)
	FormatJSON = "json" // stdout is JSON; Output.Field picks the answer
)

// Spec configures a command provider. Its JSON form (Parse, Load)
// uses the lowerCamelCase names given in each comment; durations are Go
// duration strings such as "90s" or "10m". A zero field means its default.
type Spec struct {
	// Name is the provider's registry name ("name"); default "command".
	Name string
	// Argv is the command and its arguments ("argv"), never run through a
	// shell. In every argument after the first, {prompt}, {model} and
	// {schema} are replaced by the child's prompt (PromptVia "arg" only),
	// model and schema text ("" for a call without schema). Other text in
	// braces is left alone.
	Argv []string
	// PromptVia is "stdin" (default) or "arg" ("promptVia").
	PromptVia string
	// Model replaces {model} when the call names no model ("model"). A spec
	// whose argv uses {model} must set it.
	Model string
	// Output says how to read the answer from stdout ("output").
	Output Output
	// Env is added to the inherited environment ("env"); see InheritedEnv.
	Env map[string]string
	// PassEnv names further variables of wfrun's own environment that the
	// child inherits when set, e.g. an API key ("passEnv").
	PassEnv []string
	// Dir is the child's working directory ("dir"); default wfrun's own.
	Dir string
	// Timeout bounds each child ("timeout"); 0 means only the run's limits.
	Timeout time.Duration
	// KillGrace is how long a stopped child has between SIGTERM and SIGKILL
	// ("killGrace"); default 2s.
	KillGrace time.Duration
	// MaxOutputBytes caps stdout ("maxOutputBytes"); default 4 MiB. A child
	// that writes more fails and is stopped.
	MaxOutputBytes int64
	// Capabilities are what the command can honour ("capabilities", the
	// JSON form of agentapi.Capabilities). Only outputSchema, model and
	// depthLimit may be true; see the package documentation.
	Capabilities agentapi.Capabilities
	// Sandbox runs the command in the workspace's sandbox ("sandbox"): its
	// own namespaces under Landlock, writing only where the workspace's
	// mode allows (Workspace must be set). Without it the command runs
	// with wfrun's rights.
	Sandbox bool
	// Workspace is where a sandboxed command works and what bounds it
	// (the CLI's --workspace and --sandbox); not part of the JSON file.
	Workspace *workspace.Workspace
}

// Output says how to read a child's answer from its stdout.
type Output struct {
	// Format is "text" (default) or "json" ("format").
	Format string
	// Field is a dotted path to the answer in the JSON output ("field"),
	// e.g. "result" for `claude -p --output-format json`; a segment of
	// digits indexes an array. Empty: the whole JSON value. Format json only.
	Field string
	// UsageFields are dotted paths to token counts and cost in the JSON
	// output ("usageFields"). Format json only.
	UsageFields UsageFields
}

// UsageFields are dotted paths into a command's JSON output. An empty path
// means: estimate that count (tokens) or report 0 (cost).
type UsageFields struct {
	InputTokens  string `json:"inputTokens"`
	OutputTokens string `json:"outputTokens"`
	CachedTokens string `json:"cachedTokens"`
	CostUSD      string `json:"costUSD"`
}

// specJSON is the wire form of Spec.
type specJSON struct {
	Name           string                `json:"name"`
	Argv           []string              `json:"argv"`
	PromptVia      string                `json:"promptVia"`
	Model          string                `json:"model"`
	Output         outputJSON            `json:"output"`
	Env            map[string]string     `json:"env"`
	PassEnv        []string              `json:"passEnv"`
	Dir            string                `json:"dir"`
	Timeout        string                `json:"timeout"`
	KillGrace      string                `json:"killGrace"`
	MaxOutputBytes int64                 `json:"maxOutputBytes"`
	Capabilities   agentapi.Capabilities `json:"capabilities"`
	Sandbox        bool                  `json:"sandbox"`
}

type outputJSON struct {
	Format      string      `json:"format"`
	Field       string      `json:"field"`
	UsageFields UsageFields `json:"usageFields"`
}

// Load reads and parses the spec file at path.
func Load(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("cannot read the command spec: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse parses a spec's JSON form and checks it as New does. Unknown
// fields are errors. Each error is a sentence naming the field.
func Parse(data []byte) (Spec, error) {
	var w specJSON
	if err := strictjson.Decode(data, &w); err != nil {
		return Spec{}, decodeError(err, &w)
	}
	s := Spec{
		Name: w.Name, Argv: w.Argv, PromptVia: w.PromptVia, Model: w.Model,
		Output: Output{Format: w.Output.Format, Field: w.Output.Field, UsageFields: w.Output.UsageFields},
		Env:    w.Env, PassEnv: w.PassEnv, Dir: w.Dir,
		MaxOutputBytes: w.MaxOutputBytes, Capabilities: w.Capabilities, Sandbox: w.Sandbox,
	}
	var err error
	if s.Timeout, err = duration("timeout", w.Timeout); err != nil {
		return Spec{}, err
	}
	if s.KillGrace, err = duration("killGrace", w.KillGrace); err != nil {
		return Spec{}, err
	}
	if err := s.check(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

func duration(field, text string) (time.Duration, error) {
	if text == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, fmt.Errorf("the command spec's %q is %q, which is not a duration: write a Go duration such as \"90s\" or \"10m\"", field, text)
	}
	return d, nil
}

// decodeError turns a decoding error into a sentence naming the field; v
// is what the spec was decoded into.
func decodeError(err error, v any) error {
	p := strictjson.Explain(err, v)
	switch p.Kind {
	case strictjson.WrongRoot:
		return fmt.Errorf("the command spec must be a JSON object, not a %s", p.Got)
	case strictjson.WrongField:
		return fmt.Errorf("the command spec's %q must be %s, not a %s", p.Field, p.Want, p.Got)
	case strictjson.Syntax:
		return fmt.Errorf("the command spec is not valid JSON (at byte %d: %v)", p.Offset, err)
	case strictjson.Truncated:
		return errors.New("the command spec is not valid JSON (it ends before its object is closed): write a JSON object with at least \"argv\"")
	case strictjson.Empty:
		return errors.New("the command spec is empty: write a JSON object with at least \"argv\"")
	case strictjson.Trailing:
		return errors.New("the command spec has text after its JSON object: write exactly one object")
	case strictjson.UnknownField:
		return fmt.Errorf("the command spec has an unknown field %q: the fields are name, argv, promptVia, model, output (format, field, usageFields), env, passEnv, dir, timeout, killGrace, maxOutputBytes and capabilities", p.Field)
	}
	return fmt.Errorf("the command spec cannot be read: %v", err)
}

// check reports the first problem of s as a sentence naming the field.
func (s *Spec) check() error {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return errors.New("the command spec's \"argv\" is missing or starts with an empty string: give the command and its arguments, e.g. [\"claude\", \"-p\"]")
	}
	if hasPlaceholder(s.Argv[0]) {
		return fmt.Errorf("the command spec's \"argv\" starts with %q: the command itself cannot be a placeholder; put {prompt}, {model} and {schema} in later arguments", s.Argv[0])
	}
	usesPrompt, usesModel := false, false
	for _, a := range s.Argv[1:] {
		usesPrompt = usesPrompt || strings.Contains(a, "{prompt}")
		usesModel = usesModel || strings.Contains(a, "{model}")
	}
	switch s.PromptVia {
	case "", PromptViaStdin:
		if usesPrompt {
			return errors.New("the command spec's \"argv\" contains {prompt} but \"promptVia\" is \"stdin\": set \"promptVia\": \"arg\" or remove {prompt}")
		}
	case PromptViaArg:
		if !usesPrompt {
			return errors.New("the command spec's \"promptVia\" is \"arg\" but no argument contains {prompt}: put {prompt} where the prompt goes")
		}
	default:
		return fmt.Errorf("the command spec's \"promptVia\" is %q: write \"stdin\" or \"arg\"", s.PromptVia)
	}
	if usesModel && s.Model == "" {
		return errors.New("the command spec's \"argv\" uses {model} but \"model\" is empty: set \"model\" to the model to use when a call names none")
	}
	if s.Capabilities.Model && !usesModel {
		return errors.New("the command spec's \"capabilities\" declare \"model\" but no argument contains {model}: add an argument such as \"--model={model}\" or declare \"model\": false")
	}
	c := s.Capabilities
	for _, bad := range []struct {
		on   bool
		name string
	}{{c.ToolFilter, "toolFilter"}, {c.Persona, "persona"}, {c.Effort, "effort"}, {c.Isolation, "isolation"}, {c.MaxTurns, "maxTurns"}} {
		if bad.on {
			return fmt.Errorf("the command spec's \"capabilities\" declare %q, which the command provider has no way to pass to the command: declare it false (scripts then get UNSUPPORTED_OPTION instead of an option silently ignored)", bad.name)
		}
	}
	switch s.Output.Format {
	case "", FormatText:
		if s.Output.Field != "" || s.Output.UsageFields != (UsageFields{}) {
			return errors.New("the command spec's \"output.field\" and \"output.usageFields\" need \"output.format\": \"json\"")
		}
	case FormatJSON:
		for name, p := range map[string]string{
			"output.field": s.Output.Field, "output.usageFields.inputTokens": s.Output.UsageFields.InputTokens,
			"output.usageFields.outputTokens": s.Output.UsageFields.OutputTokens, "output.usageFields.cachedTokens": s.Output.UsageFields.CachedTokens,
			"output.usageFields.costUSD": s.Output.UsageFields.CostUSD,
		} {
			if p != "" && strings.Contains("."+p+".", "..") {
				return fmt.Errorf("the command spec's %q is %q, which has an empty segment: write a dotted path such as \"usage.input_tokens\"", name, p)
			}
		}
	default:
		return fmt.Errorf("the command spec's \"output.format\" is %q: write \"text\" or \"json\"", s.Output.Format)
	}
	for k := range s.Env {
		if !proc.ValidName(k) {
			return fmt.Errorf("the command spec's \"env\" has the name %q: a variable name must be non-empty and contain no '=' or NUL", k)
		}
	}
	for _, k := range s.PassEnv {
		if !proc.ValidName(k) {
			return fmt.Errorf("the command spec's \"passEnv\" has the name %q: a variable name must be non-empty and contain no '=' or NUL", k)
		}
	}
	if s.Timeout < 0 {
		return fmt.Errorf("the command spec's \"timeout\" is %s: write a positive duration, or leave it out for no limit beyond the run's", s.Timeout)
	}
	if s.KillGrace < 0 {
		return fmt.Errorf("the command spec's \"killGrace\" is %s: write a positive duration, or leave it out for %s", s.KillGrace, DefaultKillGrace)
	}
	if s.MaxOutputBytes < 0 {
		return fmt.Errorf("the command spec's \"maxOutputBytes\" is %d: write a positive number of bytes, or leave it out for %d", s.MaxOutputBytes, DefaultMaxOutputBytes)
	}
	return nil
}

// withDefaults returns s with its zero fields set to their defaults.
func (s Spec) withDefaults() Spec {
	if s.Name == "" {
		s.Name = DefaultName
	}
	if s.PromptVia == "" {
		s.PromptVia = PromptViaStdin
	}
	if s.Output.Format == "" {
		s.Output.Format = FormatText
	}
	if s.KillGrace == 0 {
		s.KillGrace = DefaultKillGrace
	}
	if s.MaxOutputBytes == 0 {
		s.MaxOutputBytes = DefaultMaxOutputBytes
	}
	s.Argv = append([]string(nil), s.Argv...)
	s.PassEnv = append([]string(nil), s.PassEnv...)
	env := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		env[k] = v
	}
	s.Env = env
	return s
}
