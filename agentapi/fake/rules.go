package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/strictjson"
)

// Rule decides the outcome of the children whose prompt it matches. At most
// one of Reply, Fail and Timeout may be set; with none of them the child
// answers as if no rule matched (after DelayMs, with Usage).
type Rule struct {
	// Match is an RE2 regexp searched for in the prompt. Required; "^"
	// matches every prompt.
	Match string `json:"match"`
	// Reply is the answer. For a text call a JSON string is the text and any
	// other value its compact JSON. For a schema call any JSON value is the
	// output, and a string holding JSON text is parsed.
	Reply json.RawMessage `json:"reply,omitempty"`
	// DelayMs delays the outcome by that many milliseconds.
	DelayMs int `json:"delayMs,omitempty"`
	// Fail makes the child fail (task_failed) with this message.
	Fail string `json:"fail,omitempty"`
	// Timeout makes the child end as timed_out.
	Timeout bool `json:"timeout,omitempty"`
	// Usage replaces the computed token counts.
	Usage *agentapi.Usage `json:"usage,omitempty"`
}

// Rules is the content of a rules file: {"rules": [...]}. The first rule
// that matches a prompt decides.
type Rules struct {
	Rules []Rule `json:"rules"`
}

// ruleFields lists a rule's JSON fields, for the unknown-field message.
const ruleFields = "match, reply, delayMs, fail, timeout, usage"

// Parse parses and checks a rules file. Unknown fields, regexps that
// do not compile, negative delays or usage, a missing match, and a rule
// with more than one of reply, fail and timeout are refused; the error is a
// sentence naming the rule by its 1-based position ("rule 3: …").
func Parse(data []byte) (*Rules, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New(`a fake rules file must be a JSON object: write {"rules": [{"match": "…", "reply": "…"}]}`)
	}
	var top struct {
		Rules []json.RawMessage `json:"rules"`
	}
	if err := strictDecode(data, &top); err != nil {
		return nil, fmt.Errorf(`the fake rules file is not valid (%s): write {"rules": [{"match": "…", "reply": "…"}]}`, err)
	}
	rs := &Rules{Rules: make([]Rule, 0, len(top.Rules))}
	for i, raw := range top.Rules {
		var r Rule
		if err := strictDecode(raw, &r); err != nil {
			return nil, fmt.Errorf("rule %d: %s; a rule's fields are %s", i+1, err, ruleFields)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		rs.Rules = append(rs.Rules, r)
	}
	return rs, nil
}

// Load reads and parses the rules file at path.
func Load(path string) (*Rules, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the fake rules file: %w", err)
	}
	rs, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// check reports what is wrong with one rule, in a sentence.
func (r *Rule) check() error {
	if r.Match == "" {
		return errors.New(`"match" is missing or empty: write a regexp found in the prompt, or "^" to match every prompt`)
	}
	if _, err := regexp.Compile(r.Match); err != nil {
		return fmt.Errorf("match %q is not an RE2 regexp (%v): fix it, or escape special characters with \\\\", r.Match, unprefixRE(err))
	}
	if r.DelayMs < 0 {
		return fmt.Errorf("delayMs is %d: write a delay of 0 or more milliseconds", r.DelayMs)
	}
	hasReply := len(r.Reply) > 0
	if r.Fail != "" && (hasReply || r.Timeout) {
		return errors.New(`it has "fail" together with "reply" or "timeout": a rule has one outcome, so keep only one`)
	}
	if r.Timeout && hasReply {
		return errors.New(`it has "timeout" together with "reply": a rule has one outcome, so keep only one`)
	}
	if u := r.Usage; u != nil && (u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedTokens < 0 || u.CostUSD < 0) {
		return errors.New("its usage has a negative number: write token counts and cost of 0 or more")
	}
	return nil
}

// strictDecode decodes one JSON value into v, refusing unknown fields and
// trailing data, with an error that names what was wrong.
func strictDecode(data []byte, v any) error {
	err := strictjson.Decode(data, v)
	if err == nil {
		return nil
	}
	switch p := strictjson.Explain(err, v); p.Kind {
	case strictjson.Trailing:
		return errors.New("unexpected data after the JSON value")
	case strictjson.UnknownField:
		return fmt.Errorf("unknown field %q", p.Field)
	case strictjson.WrongField:
		return fmt.Errorf("%q must be %s, not a JSON %s", p.Field, p.Want, p.Got)
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

func unprefixRE(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
