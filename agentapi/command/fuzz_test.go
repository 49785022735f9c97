package command

import "testing"

// FuzzParseSpec feeds arbitrary spec files (--command-spec is the user's
// text): never a panic, and whatever is accepted New accepts as it is.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		`{"argv": ["claude", "-p"]}`,
		`{"name": "c", "argv": ["x", "--model={model}", "{prompt}"], "promptVia": "arg", "model": "m", "capabilities": {"model": true}}`,
		`{"argv": ["x"], "output": {"format": "json", "field": "a.0.b", "usageFields": {"inputTokens": "u.in"}}, "timeout": "90s", "killGrace": "1s"}`,
		`{"argv": ["x"], "output": {"field": "a"}}`, `{"argv": ["x"], "timeout": "-1s"}`, `{"argv": []}`, `{"argv": ["x"]} {}`,
		`[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a sentence")
			}
			return
		}
		p, err := New(s)
		if err != nil {
			t.Fatalf("New refused what Parse accepted (%s): %v", data, err)
		}
		if p.spec.KillGrace <= 0 || p.spec.MaxOutputBytes <= 0 || len(p.spec.Argv) == 0 {
			t.Fatalf("accepted %s without its defaults: %+v", data, p.spec)
		}
	})
}
