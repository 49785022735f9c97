package runtime

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// agentOptions are the option keys agent() accepts, in both call forms.
// "prompt" is only valid in the object form, "description" is the object
// form's alias of label (accepted in both).
var agentOptions = []string{
	"label", "description", "phase", "schema", "model", "effort", "agentType", "persona",
	"tools", "maxTurns", "timeoutMs", "isolation",
}

var agentOptionSet = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range agentOptions {
		m[k] = true
	}
	return m
}()

const formsHint = "call agent(prompt, options) with a prompt string, or agent({prompt, ...options}) with an object"

// agentFunc implements agent(). Loop goroutine: goja calls it while running
// script code, which is either the body's first run or a callback of the
// loop — often deliver's resolve, when a continuation calls agent() again,
// so agentFunc is re-entered from inside deliver (see deliver).
func (r *run) agentFunc(call goja.FunctionCall) goja.Value {
	first := call.Argument(0)
	var (
		form   callForm
		prompt string
		opts   *goja.Object
	)
	switch {
	case isString(first):
		form, prompt = formText, first.String()
		if o := call.Argument(1); !goja.IsUndefined(o) && !goja.IsNull(o) {
			obj, ok := o.(*goja.Object)
			if !ok || isArray(obj) || isFunction(obj) {
				return r.fatalf(wferr.InvalidArgument, "agent()'s second argument must be an options object, not %s; %s", describe(o), formsHint)
			}
			opts = obj
		}
	case isPlainObject(first):
		form, opts = formObject, first.(*goja.Object)
		p := opts.Get("prompt")
		if p == nil || goja.IsUndefined(p) || !isString(p) {
			return r.fatalf(wferr.InvalidArgument, "agent({…}) needs a prompt string in its prompt field, got %s; %s", describe(p), formsHint)
		}
		prompt = p.String()
		if o := call.Argument(1); !goja.IsUndefined(o) {
			return r.fatalf(wferr.InvalidArgument, "agent({…}) takes one argument: put the options into the object; %s", formsHint)
		}
	default:
		return r.fatalf(wferr.InvalidArgument, "agent() got %s as its first argument; %s", describe(first), formsHint)
	}
	if strings.TrimSpace(prompt) == "" {
		return r.fatalf(wferr.InvalidArgument, "agent() got an empty prompt; say what the agent should do")
	}

	c := &child{form: form}
	c.req = agentapi.Request{
		RunID: r.cfg.RunID, Parent: r.cfg.Parent, Prompt: prompt,
		Phase: r.phase, Timeout: r.cfg.AgentTimeout,
	}
	if opts != nil {
		if !r.readOptions(c, opts, form) {
			return goja.Undefined()
		}
	}
	if c.req.Label == "" {
		c.req.Label = defaultLabel(prompt)
	}
	if c.req.Model == "" { // the call's model, else its phase's, else the run's
		c.req.Model = r.phaseModel(c.req.Phase)
		if c.req.Model == "" {
			c.req.Model = r.cfg.Meta.Model
		}
		// A persona's own model beats a default, never the call's.
		c.req.ModelDefaulted = c.req.Model != ""
	}
	if c.req.Persona != "" {
		if pc, ok := r.cfg.Provider.(agentapi.PersonaChecker); ok {
			if err := pc.CheckPersona(c.req.Persona); err != nil {
				return r.raise(wferr.Wrap(wferr.UnsupportedOption, err, "%v", err))
			}
		}
	}

	// Budget and cap: refused calls are fatal and not counted.
	r.mu.Lock()
	spent := r.spentLocked()
	if r.cfg.BudgetTokens > 0 && spent >= r.cfg.BudgetTokens {
		r.mu.Unlock()
		return r.fatalf(wferr.BudgetExhausted, "the run's token budget of %d is spent (%d used); check budget.remaining() before calling agent()", r.cfg.BudgetTokens, spent)
	}
	if r.spawned >= r.cfg.MaxAgents {
		r.mu.Unlock()
		return r.fatalf(wferr.AgentCap, "this run may start at most %d agents and this call would be number %d; do fewer agent() calls (batch items into one prompt) or raise maxTotalAgents", r.cfg.MaxAgents, r.spawned+1)
	}
	if r.stopping {
		r.mu.Unlock()
		return r.fatalf(wferr.Cancelled, "agent() was called after the run stopped")
	}
	r.spawned++
	c.req.Seq = r.spawned
	r.mu.Unlock()
	c.req.AgentID = "ag_" + strings.TrimPrefix(r.cfg.RunID, "wf_") + "_" + strconv.Itoa(c.req.Seq)

	p, resolve, _ := r.vm.NewPromise()
	c.resolve = resolve
	if r.cfg.Journal != nil {
		c.key = CallKey(c.req)
		if r.replay != nil && r.replay.take(r, c) {
			return r.vm.ToValue(p) // answered from the journal (replay.go)
		}
	}
	c.enqueue = r.loop.register()
	r.dispatch(c)
	return r.vm.ToValue(p)
}

// OptionError is what CheckAgentOptions found wrong with one agent() call:
// the error to report, and the option keys that caused it (so that a caller
// holding their positions can point at the first).
type OptionError struct {
	Err  *wferr.Error
	Keys []string
}

// CheckAgentOptions checks the option keys of one agent() call the way the
// call itself does: an unknown key, or one the provider cannot honour, is
// UNSUPPORTED_OPTION. objectForm says the keys come from agent({prompt, …}),
// where prompt is part of the object. The engine uses it at check time on
// calls whose options are written as literals. It returns nil when every
// key is fine.
func CheckAgentOptions(keys []string, objectForm bool, p agentapi.Provider) *OptionError {
	var unknown, known []string
	for _, k := range keys {
		switch {
		case k == "prompt" && objectForm:
		case agentOptionSet[k]:
			known = append(known, k)
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		hint := ""
		if !objectForm && len(unknown) == 1 && unknown[0] == "prompt" {
			hint = " (the prompt is the first argument in this form)"
		}
		return &OptionError{Keys: unknown, Err: wferr.New(wferr.UnsupportedOption,
			"agent() has no option %s%s; the options are %s. Remove it: an option nobody honours is refused rather than ignored",
			quoteList(unknown), hint, strings.Join(agentOptions, ", "))}
	}
	err := agentapi.CheckOptions(p.Name(), p.Capabilities(), known)
	var unsupported *agentapi.UnsupportedOptionsError
	if errors.As(err, &unsupported) {
		return &OptionError{Keys: unsupported.Options, Err: wferr.Wrap(wferr.UnsupportedOption, err, "%v", err)}
	}
	return nil
}

// readOptions copies the script's options into c, reporting the first
// misuse as a fatal error (it returns false then). A key whose value is
// undefined counts as absent.
func (r *run) readOptions(c *child, opts *goja.Object, form callForm) bool {
	keys, values := presentOptions(opts)
	if bad := CheckAgentOptions(keys, form == formObject, r.cfg.Provider); bad != nil {
		r.raise(bad.Err)
		return false
	}
	for i, k := range keys {
		if k == "prompt" {
			continue
		}
		if err := optionReaders[k](r, c, values[i]); err != nil {
			r.raise(err)
			return false
		}
	}
	return true
}

// presentOptions returns the keys of opts whose values are not undefined,
// and those values, each read once (an option may be a getter).
func presentOptions(opts *goja.Object) (keys []string, values []goja.Value) {
	for _, k := range opts.Keys() {
		if v := opts.Get(k); v != nil && !goja.IsUndefined(v) {
			keys = append(keys, k)
			values = append(values, v)
		}
	}
	return keys, values
}

// optionReader reads one option's value into a child's request, or says
// what is wrong with it.
type optionReader func(r *run, c *child, v goja.Value) *wferr.Error

// optionReaders has one reader per key of agentOptions.
var optionReaders = map[string]optionReader{
	"label":       stringOption("label", func(c *child, s string) { c.req.Label = truncateRunes(strings.TrimSpace(s), 200) }),
	"description": stringOption("description", func(c *child, s string) { c.req.Label = truncateRunes(strings.TrimSpace(s), 200) }),
	"phase":       stringOption("phase", func(c *child, s string) { c.req.Phase = s }),
	"model":       stringOption("model", func(c *child, s string) { c.req.Model = s }),
	"effort":      stringOption("effort", func(c *child, s string) { c.req.Effort = s }),
	"agentType":   stringOption("agentType", func(c *child, s string) { c.req.Persona = s }),
	"persona":     stringOption("persona", func(c *child, s string) { c.req.Persona = s }),
	"isolation":   stringOption("isolation", func(c *child, s string) { c.req.Isolation = s }),
	"tools":       readTools,
	"maxTurns":    positiveOption("maxTurns", "a positive integer", func(c *child, n int) { c.req.MaxTurns = n }),
	"timeoutMs": positiveOption("timeoutMs", "a positive whole number of milliseconds", func(c *child, n int) {
		c.req.Timeout = time.Duration(n) * time.Millisecond
	}),
	"schema": readSchema,
}

func badOption(key, want string, v goja.Value) *wferr.Error {
	return wferr.New(wferr.InvalidArgument, "agent() option %s must be %s, got %s", key, want, describe(v))
}

// MaxOptionBytes is the longest string agent() accepts for a name-like
// option (label, description, phase, model, effort, agentType, persona,
// isolation), and phase() for a title: each is copied into every event,
// journal entry and listing of the agent, so a script must not make them
// megabytes long.
const MaxOptionBytes = 1 << 10

// MaxNoteBytes is how much of an agent's error and note the run keeps: a
// provider (or a hostile child) may report megabytes; the first 16 KiB say
// what went wrong.
const MaxNoteBytes = 16 << 10

func stringOption(key string, set func(*child, string)) optionReader {
	return func(r *run, c *child, v goja.Value) *wferr.Error {
		if !isString(v) {
			return badOption(key, "a string", v)
		}
		s, err := cappedString("agent() option "+key, v)
		if err != nil {
			return err
		}
		set(c, s)
		return nil
	}
}

// cappedString is the string v, or INVALID_ARGUMENT when it is longer than
// MaxOptionBytes. A longer JavaScript string is refused by its length
// before it is copied: every UTF-16 unit is at least one byte of UTF-8.
func cappedString(what string, v goja.Value) (string, *wferr.Error) {
	n, unit := 0, "characters"
	if js, ok := v.(goja.String); ok {
		n = js.Length()
	}
	var s string
	if n <= MaxOptionBytes {
		s = v.String()
		n, unit = len(s), "bytes"
	}
	if n > MaxOptionBytes {
		return "", wferr.New(wferr.InvalidArgument, "%s is %d %s long; the limit is 1 KiB (%d bytes): keep it a short name, and put long text into the prompt",
			what, n, unit, MaxOptionBytes)
	}
	return s, nil
}

// capNote keeps the first MaxNoteBytes of an agent's error or note, cut at
// a character boundary, and marks the cut.
func capNote(s string) string {
	if len(s) <= MaxNoteBytes {
		return s
	}
	cut := MaxNoteBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func positiveOption(key, want string, set func(*child, int)) optionReader {
	return func(r *run, c *child, v goja.Value) *wferr.Error {
		n, ok := positiveInt(v)
		if !ok {
			return badOption(key, want, v)
		}
		set(c, n)
		return nil
	}
}

func readTools(r *run, c *child, v goja.Value) *wferr.Error {
	obj, ok := v.(*goja.Object)
	if !ok || !isArray(obj) {
		return badOption("tools", "an array of tool names such as ['Read', 'Grep']", v)
	}
	tools := []string{}
	for i, item := range exportArray(obj) {
		if !isString(item) {
			return wferr.New(wferr.InvalidArgument, "agent() option tools must hold tool names (strings), but item %d is %s", i, describe(item))
		}
		tools = append(tools, item.String())
	}
	c.req.Tools = tools
	return nil
}

func readSchema(r *run, c *child, v goja.Value) *wferr.Error {
	obj, ok := v.(*goja.Object)
	if !ok || isArray(obj) || isFunction(obj) {
		return wferr.New(wferr.UnsupportedSchema, "agent() option schema must be a JSON Schema object such as {type:'object', properties:{…}, required:[…]}, got %s", describe(v))
	}
	s, err := r.compileSchema(obj)
	if err != nil {
		return err
	}
	c.schema = s
	c.req.Schema = s.Raw()
	return nil
}

// compileSchema compiles a schema object, caching by its JSON text: scripts
// reuse one schema constant across many calls.
func (r *run) compileSchema(obj *goja.Object) (*schema.Schema, *wferr.Error) {
	raw, err := r.rt.ExportJSON(obj, 1<<20)
	if err != nil {
		return nil, wferr.Wrap(wferr.UnsupportedSchema, err, "agent() option schema cannot be turned into JSON: %v", err)
	}
	if s, ok := r.schemas[string(raw)]; ok {
		return s, nil
	}
	s, err := schema.Compile(raw)
	if err != nil {
		return nil, wferr.Wrap(wferr.UnsupportedSchema, err, "agent() option schema is not usable: %v", err)
	}
	r.schemas[string(raw)] = s
	return s, nil
}

// phaseModel returns the model meta.phases gives the phase, if any.
func (r *run) phaseModel(phase string) string {
	if phase == "" {
		return ""
	}
	for _, p := range r.cfg.Meta.Phases {
		if p.Title == phase {
			return p.Model
		}
	}
	return ""
}

// defaultLabel is the prompt's first non-empty line, at most 48 characters.
func defaultLabel(prompt string) string {
	if label := human.FirstLine(prompt, 48); label != "" {
		return label
	}
	return "agent"
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n-1]) + "…"
}

func positiveInt(v goja.Value) (int, bool) {
	switch x := v.Export().(type) {
	case int64:
		return int(x), x > 0 && x <= math.MaxInt32
	case float64:
		return int(x), x > 0 && x == math.Trunc(x) && x <= math.MaxInt32
	}
	return 0, false
}

func quoteList(names []string) string {
	sort.Strings(names)
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
