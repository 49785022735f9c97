package acp

import (
	"strings"
	"testing"
)

func TestTheFinalMessageIsWhatTheAgentSaidLast(t *testing.T) {
	t.Parallel()
	id := func(s string) *string { return &s }
	cases := []struct {
		name  string
		steps func(m *message)
		want  string
		over  bool
	}{
		{"chunks join", func(m *message) { m.add(nil, "a"); m.add(nil, "b") }, "ab", false},
		{"a tool call starts a new message", func(m *message) {
			m.add(nil, "looking")
			m.afterTool = true
			m.add(nil, "found")
		}, "found", false},
		{"nothing after the last tool call", func(m *message) { m.add(nil, "looking"); m.afterTool = true }, "", false},
		{"a new message id starts a new message", func(m *message) {
			m.add(id("1"), "first")
			m.add(id("2"), "second")
			m.add(id("2"), " part")
		}, "second part", false},
		{"the same message id goes on across a tool call", func(m *message) {
			m.add(id("1"), "one")
			m.afterTool = true
			m.add(id("1"), " message")
		}, "one message", false},
		{"a message past the bound is marked", func(m *message) {
			m.add(nil, strings.Repeat("x", maxMessageBytes))
			m.add(nil, "y")
		}, strings.Repeat("x", maxMessageBytes), true},
		{"a new message clears the mark", func(m *message) {
			m.add(nil, strings.Repeat("x", maxMessageBytes+1))
			m.afterTool = true
			m.add(nil, "short")
		}, "short", false},
	}
	for _, c := range cases {
		var m message
		c.steps(&m)
		if got := m.final(); got != c.want || m.over != c.over {
			t.Errorf("%s: final %.20q (%d bytes), over %v; want %.20q, over %v", c.name, got, len(got), m.over, c.want, c.over)
		}
	}
}
