package agentapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wfrun/wfrun/internal/human"
)

// Capabilities says which agent() options a provider can honour. An option
// whose capability is false is refused with UNSUPPORTED_OPTION rather than
// accepted and ignored.
type Capabilities struct {
	OutputSchema bool `json:"outputSchema"` // schema: structured output
	ToolFilter   bool `json:"toolFilter"`   // tools: narrow the child's tool set
	Persona      bool `json:"persona"`      // agentType / persona
	Effort       bool `json:"effort"`       // effort
	Isolation    bool `json:"isolation"`    // isolation
	Model        bool `json:"model"`        // model: choose the model per child
	MaxTurns     bool `json:"maxTurns"`     // maxTurns
	DepthLimit   bool `json:"depthLimit"`   // the provider stops children from spawning their own children
}

// All returns capabilities with every option supported.
func All() Capabilities {
	return Capabilities{true, true, true, true, true, true, true, true}
}

// OptionCapability maps each agent() option that needs a provider capability
// to a function reading that capability. Options not listed here (label,
// description, phase, timeoutMs) are honoured by the run itself.
var optionCapability = map[string]func(Capabilities) bool{
	"schema":    func(c Capabilities) bool { return c.OutputSchema },
	"tools":     func(c Capabilities) bool { return c.ToolFilter },
	"agentType": func(c Capabilities) bool { return c.Persona },
	"persona":   func(c Capabilities) bool { return c.Persona },
	"effort":    func(c Capabilities) bool { return c.Effort },
	"isolation": func(c Capabilities) bool { return c.Isolation },
	"model":     func(c Capabilities) bool { return c.Model },
	"maxTurns":  func(c Capabilities) bool { return c.MaxTurns },
}

// UnsupportedOptionsError names the options a provider cannot honour.
type UnsupportedOptionsError struct {
	Provider string
	Options  []string // sorted
}

func (e *UnsupportedOptionsError) Error() string {
	n := len(e.Options)
	return fmt.Sprintf("the %q provider cannot honour %s; remove %s or choose a provider that supports %s",
		e.Provider, strings.Join(e.Options, ", "), human.Noun(n, "that option", "those options"), human.Noun(n, "it", "them"))
}

// CheckOptions returns an *UnsupportedOptionsError naming every option in
// used that the capabilities cannot honour, or nil. used holds option names
// as the script wrote them (schema, tools, agentType, …).
func CheckOptions(provider string, caps Capabilities, used []string) error {
	var bad []string
	for _, name := range used {
		if f, ok := optionCapability[name]; ok && !f(caps) {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return &UnsupportedOptionsError{Provider: provider, Options: bad}
}
