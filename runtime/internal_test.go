package runtime

import "testing"

func TestAgentOptions_EveryOptionHasAReader(t *testing.T) {
	for _, k := range agentOptions {
		if optionReaders[k] == nil {
			t.Errorf("agent() option %s is accepted but has no reader", k)
		}
	}
	if len(optionReaders) != len(agentOptions) {
		t.Errorf("%d readers for %d options", len(optionReaders), len(agentOptions))
	}
}
