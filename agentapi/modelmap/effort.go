package modelmap

import (
	"fmt"
	"strings"
)

// Effort is how hard a child should think: the `effort` option of agent()
// and of persona files.
type Effort string

// The effort levels, lowest first. They are Claude Code's names; OpenAI's
// reasoning_effort has the same words up to high, and newer OpenAI models
// take xhigh too.
const (
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
	EffortXHigh  Effort = "xhigh"
)

// ParseEffort reads an effort level, without regard to case. "" is no
// effort (the endpoint's default). Claude Code's "max" is read as xhigh,
// the highest level wfrun passes on.
func ParseEffort(s string) (Effort, error) {
	switch e := Effort(strings.ToLower(strings.TrimSpace(s))); e {
	case "":
		return "", nil
	case EffortLow, EffortMedium, EffortHigh, EffortXHigh:
		return e, nil
	case "max":
		return EffortXHigh, nil
	}
	return "", fmt.Errorf("effort %q is not a level wfrun knows: use low, medium, high or xhigh", s)
}

// ReasoningEffort is the value of the reasoning_effort field of an OpenAI
// chat completion request for e; "" sends none.
func (e Effort) ReasoningEffort() string { return string(e) }

// StepDown is the level to try when an endpoint refuses e: xhigh steps
// down to high, the highest level every reasoning endpoint knows; the
// others step down to none (ok false), and the request goes without a
// reasoning_effort.
func (e Effort) StepDown() (Effort, bool) {
	if e == EffortXHigh {
		return EffortHigh, true
	}
	return "", false
}
