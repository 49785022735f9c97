package fake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
)

func TestParseRulesRefusesBadFilesWithASentenceNamingTheRule(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"not an object", `[]`, `must be a JSON object`},
		{"empty file", ``, `must be a JSON object`},
		{"not JSON", `{"rules": [`, `the fake rules file is not valid`},
		{"unknown top-level field", `{"rules": [], "rulez": []}`, `unknown field "rulez"`},
		{"unknown rule field", `{"rules": [{"match": "a", "reply": "x"}, {"match": "b", "replay": "x"}]}`,
			`rule 2: unknown field "replay"; a rule's fields are match, reply, delayMs, fail, timeout, usage`},
		{"unknown usage field", `{"rules": [{"match": "a", "usage": {"tokens": 3}}]}`, `rule 1: unknown field "tokens"`},
		{"missing match", `{"rules": [{"reply": "x"}]}`, `rule 1: "match" is missing or empty`},
		{"bad regexp", `{"rules": [{"match": "ok"}, {"match": "ok"}, {"match": "a(b"}]}`, `rule 3: match "a(b" is not an RE2 regexp (missing closing ): ` + "`a(b`)"},
		{"lookahead", `{"rules": [{"match": "(?=a)"}]}`, `rule 1: match "(?=a)" is not an RE2 regexp`},
		{"negative delay", `{"rules": [{"match": "a", "delayMs": -5}]}`, `rule 1: delayMs is -5`},
		{"fail with reply", `{"rules": [{"match": "a", "fail": "no", "reply": "x"}]}`, `rule 1: it has "fail" together with "reply" or "timeout"`},
		{"fail with timeout", `{"rules": [{"match": "a", "fail": "no", "timeout": true}]}`, `rule 1: it has "fail" together with "reply" or "timeout"`},
		{"timeout with reply", `{"rules": [{"match": "a", "timeout": true, "reply": "x"}]}`, `rule 1: it has "timeout" together with "reply"`},
		{"negative usage", `{"rules": [{"match": "a", "usage": {"inputTokens": -1, "outputTokens": 0}}]}`, `rule 1: its usage has a negative number`},
		{"wrong field type", `{"rules": [{"match": "a", "delayMs": "10"}]}`, `rule 1: "delayMs" must be a whole number, not a JSON string`},
		{"trailing data", `{"rules": []} {}`, `unexpected data after the JSON value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse([]byte(c.file))
			if err == nil {
				t.Fatalf("Parse accepted %s as %+v", c.file, rs)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not contain %q", err, c.want)
			}
		})
	}
}

func TestParseRulesAcceptsEveryKindOfRule(t *testing.T) {
	rs, err := Parse([]byte(`{"rules": [
		{"match": "^text", "reply": "hello"},
		{"match": "json", "reply": {"a": [1, 2]}, "delayMs": 5},
		{"match": "boom", "fail": "it broke"},
		{"match": "slow", "timeout": true, "delayMs": 1},
		{"match": "cheap", "usage": {"inputTokens": 1, "outputTokens": 2, "costUSD": 0.5}},
		{"match": "null", "reply": null}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rules) != 6 || rs.Rules[4].Usage.OutputTokens != 2 || string(rs.Rules[5].Reply) != "null" {
		t.Errorf("parsed %+v", rs.Rules)
	}
	if rs, err := Parse([]byte(`{}`)); err != nil || len(rs.Rules) != 0 {
		t.Errorf("Parse({}) = %+v, %v; want no rules", rs, err)
	}
}

func TestLoadRulesReadsTheAuditPipelineRules(t *testing.T) {
	rs, err := Load(filepath.Join("testdata", "audit-pipeline.rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rules) != 5 || rs.Rules[3].Fail != "context window exceeded" || rs.Rules[1].DelayMs != 50 {
		t.Errorf("parsed %+v", rs.Rules)
	}
}

func TestLoadRulesNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"rules": [{"match": "("}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path+": rule 1:") {
		t.Errorf("Load error = %v, want it to name %s and rule 1", err, path)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// FuzzParseRules: Parse never panics, a provider built from accepted
// rules runs any prompt without an error, and every completed schema call
// answers with a value that satisfies the schema.
func FuzzParseRules(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "audit-pipeline.rules.json")); err == nil {
		f.Add(data, "Audit api/users.go now")
	}
	f.Add([]byte(`{"rules": [{"match": "a", "reply": "\"{}\"", "usage": {"inputTokens": 1}}]}`), "a")
	f.Add([]byte(`{"rules": [{"match": "(", "fail": "x"}]}`), "")
	f.Add([]byte(`{"rules": [{"match": "^", "timeout": true}]}`), "x")
	f.Add([]byte(`{"rules": [{"match": "b", "reply": {"a": "ok"}}, {"match": "c", "reply": "{\"a\": 1}"}, {"match": "d", "reply": "not json"}]}`), "bcd")
	f.Add([]byte(`{"rules": [{"match": "(?i)Ä+", "delayMs": 0, "reply": null, "usage": {"inputTokens": 0, "outputTokens": 0, "costUSD": 0}}]}`), "ää")
	f.Add([]byte(`{"rules": [{"match": "x", "reply": 1}], "rules": []}`), "x")
	const answer = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
	sch, err := schema.Compile(json.RawMessage(answer))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, prompt string) {
		rs, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("Parse refused the file with an empty message")
			}
			return
		}
		for _, r := range rs.Rules {
			if r.DelayMs > 0 {
				return // keep the fuzzer fast
			}
		}
		p := New(Options{Rules: rs})
		for _, text := range []string{"", answer} {
			req := textRequest(prompt)
			if text != "" {
				req.Schema = []byte(text)
			}
			res, err := p.Run(t.Context(), req)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !res.Status.Valid() {
				t.Fatalf("Run returned status %q", res.Status)
			}
			if text != "" && res.Status == agentapi.StatusCompleted {
				if err := sch.Validate(res.Output); err != nil {
					t.Fatalf("a completed schema call answered %s, which does not satisfy the schema: %v", res.Output, err)
				}
			}
		}
	})
}
