package agentapi

// Optional interfaces a Provider may implement so that the run side can
// refuse or warn about a request before any child starts: at check time for
// the values a script writes as literals, and at the agent() call for the
// others, with the script's position either way.

// PersonaChecker is implemented by a provider that resolves agentType
// (persona) names itself. CheckPersona returns nil for a name the provider
// can run, or an error whose text says what is wrong and what to write
// instead (the folders searched, the closest names); the run reports it as
// UNSUPPORTED_OPTION.
type PersonaChecker interface {
	CheckPersona(name string) error
}

// ModelChecker is implemented by a provider that maps model names (aliases
// such as opus, sonnet, haiku) before sending them. CheckModel returns ""
// for a name that is sent as it is meant, or a warning that says what the
// provider will do instead (e.g. fall back to the run's model); `check`
// lists it among its warnings.
type ModelChecker interface {
	CheckModel(name string) (warning string)
}
