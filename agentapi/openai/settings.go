package openai

import (
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/internal/wferr"
)

// settings are what one child runs with once its request, its persona and
// the provider's configuration are put together.
type settings struct {
	persona  *persona.Persona // nil without one
	model    string           // sent to the endpoint
	window   int              // the model's context window, in tokens
	effort   string           // reasoning_effort; "" sends none
	maxTurns int
	notes    []string // for the Result's Note
}

// settle works out a request's settings. The call's own model, effort and
// maxTurns win over the persona's, which win over the run's defaults; the
// model then goes through the model map. An unknown persona is an
// UNSUPPORTED_OPTION error.
func (p *Provider) settle(req agentapi.Request) (settings, error) {
	var s settings
	if req.Persona != "" {
		per, err := p.cfg.Personas.Lookup(req.Persona)
		if err != nil {
			return s, wferr.Wrap(wferr.UnsupportedOption, err, "%v", err)
		}
		s.persona = &per
	}

	requested := req.Model // the call's own, or the run's default for it
	if s.persona != nil && (req.Model == "" || req.ModelDefaulted) &&
		s.persona.Model != "" && !strings.EqualFold(s.persona.Model, modelmap.Inherit) {
		requested = s.persona.Model
	}
	r := p.cfg.Models.Resolve(requested, p.cfg.Model, p.anthropic)
	s.model, s.window = r.Model, r.ContextWindow
	if s.model == "" {
		s.model = p.cfg.Model
	}
	if r.Note != "" {
		s.notes = append(s.notes, r.Note)
	}

	effort := req.Effort
	if effort == "" && s.persona != nil {
		effort = string(s.persona.Effort)
	}
	// A level wfrun knows is sent as its reasoning_effort; any other word
	// is the endpoint's own (minimal, none, …) and is sent as written.
	if e, err := modelmap.ParseEffort(effort); err == nil {
		s.effort = e.ReasoningEffort()
	} else {
		s.effort = strings.TrimSpace(effort)
	}

	s.maxTurns = req.MaxTurns
	if s.maxTurns <= 0 && s.persona != nil {
		s.maxTurns = s.persona.MaxTurns
	}
	if s.maxTurns <= 0 {
		s.maxTurns = p.cfg.MaxTurns
	}
	return s, nil
}
