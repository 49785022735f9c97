package fake

import "github.com/wfrun/wfrun/agentapi"

// CheckPersona accepts any agentType name unless Options.Personas found a
// folder of persona files: then a name must be one of them (or a built-in),
// as it must be for a real provider, so that a dry run catches a typo
// (agentapi.PersonaChecker).
func (p *Provider) CheckPersona(name string) error {
	if p.personas == nil {
		return nil
	}
	_, err := p.personas.Lookup(name)
	return err
}

var _ agentapi.PersonaChecker = (*Provider)(nil)
