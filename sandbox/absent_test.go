package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

func TestAbsentUses_AreFoundWithTheirPositions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // "What@line:col"
	}{
		{"the clock", "const n = Date.now()\nreturn n", []string{"Date.now()@1:11"}},
		{"new Date without arguments", "return new Date()", []string{"new Date()@1:8"}},
		{"Date called", "return Date()", []string{"Date()@1:8"}},
		{"randomness", "return Math.random()", []string{"Math.random()@1:8"}},
		{"require", "const fs = require('fs')\nreturn 1", []string{"require()@1:12"}},
		{"every timer", "setTimeout(f, 1); setInterval(f, 1); setImmediate(f); clearTimeout(1)\nfunction f() {}\nreturn 1",
			[]string{"setTimeout()@1:1", "setInterval()@1:19", "setImmediate()@1:38", "clearTimeout()@1:55"}},
		{"all of them, in order", "const a = Math.random()\nconst b = new Date()\nreturn [a, b]", []string{"Math.random()@1:11", "new Date()@2:11"}},
		{"inside a function and a try", "function f() { try { return Date.now() } catch { return 0 } }\nreturn f()", []string{"Date.now()@1:29"}},
		{"a date from args is fine", "return new Date(args.now).getTime()", nil},
		{"typeof is a feature test", "return typeof require === 'function' || typeof setTimeout", nil},
		{"a name the script binds is its own", "const require = (x) => x\nfunction setTimeout() {}\nclass Date2 {}\nreturn require(1) + setTimeout()", nil},
		{"a method of another object", "const o = { now() { return 1 }, random() { return 2 } }\nreturn o.now() + o.random()", nil},
		{"in a string or comment", "// Date.now() and require('x')\nreturn 'Math.random()'", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("t.js", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range s.AbsentUses() {
				got = append(got, fmt.Sprintf("%s@%d:%d", u.What, u.Line, u.Column))
				if u.Why == "" {
					t.Errorf("%s has no reason", u.What)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("uses %q, want %q", got, tc.want)
			}
		})
	}
}
