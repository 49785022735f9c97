package calls_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/meta/calls"
	"github.com/wfrun/wfrun/sandbox"
)

func TestAgent_ReadsTheLiteralOptionsOfEveryCall(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // per call: form, keys@line:col, open
	}{
		{"both forms", "await agent('a', { label: 'x', model: 'm' })\nawait agent({ prompt: 'p', phase })\nreturn 1",
			"text[label@1:20 model@1:32] object[prompt@2:15 phase@2:28]"},
		{"a spread or a computed key leaves the object open", "const k = 'x'\nawait agent('a', { ...o, [k]: 1, label: 'y' })\nreturn 1",
			"text[label@2:34]open"},
		{"options that are not a literal are left to the call", "const o = {}\nawait agent('a', o)\nawait agent(`t`)\nreturn 1", ""},
		{"a prompt of any expression", "const p = 'x', a = 1, b = 2\nawait agent(p, { label: 'l' })\nawait agent(`${a}:${b} ${p}`, { model: 'opus' })\nreturn 1",
			"text[label@2:18] text[model@3:33]"},
		{"a script's own agent is not the host's", "function agent(x) { return x }\nagent('a', { nope: 1 })\nreturn 1", ""},
		{"a method named agent is not a call of agent", "const o = { agent() {} }\no.agent('a', { nope: 1 })\nreturn 1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sandbox.Parse("t.js", tc.src, calls.Callee)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range calls.Agent(s) {
				form := "text"
				if c.ObjectForm {
					form = "object"
				}
				var keys []string
				for _, k := range c.Keys {
					keys = append(keys, fmt.Sprintf("%s@%d:%d", k.Name, k.Line, k.Column))
				}
				open := ""
				if c.Open {
					open = "open"
				}
				got = append(got, fmt.Sprintf("%s[%s]%s", form, strings.Join(keys, " "), open))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("calls %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestAgent_SeesNothingUnlessTheSandboxWatchedTheCallee(t *testing.T) {
	s, err := sandbox.Parse("t.js", "await agent('a', { label: 'x' })\nreturn 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := calls.Agent(s); len(got) != 0 {
		t.Errorf("calls %+v of a script parsed without a watch", got)
	}
}
