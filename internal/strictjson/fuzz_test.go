package strictjson

import (
	"encoding/json"
	"testing"
)

// fuzzTarget has the shapes the callers decode into: nested objects,
// arrays, maps, pointers and raw values, so that Explain walks field paths
// of every kind.
type fuzzTarget struct {
	Name  string            `json:"name"`
	Tools []string          `json:"tools"`
	Max   *int              `json:"max"`
	On    bool              `json:"on"`
	Env   map[string]string `json:"env"`
	Out   struct {
		Field []struct {
			N int `json:"n"`
		} `json:"field"`
	} `json:"output"`
	Raw json.RawMessage `json:"raw"`
}

// FuzzDecodeExplain feeds Decode the JSON a model or a person might write,
// and Explain its error: neither may panic, a decode that succeeds must
// agree with encoding/json, and every error must be explained as
// something.
func FuzzDecodeExplain(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a","tools":["Read"],"max":3,"on":true,"env":{"K":"v"},"output":{"field":[{"n":1}]},"raw":[1]}`,
		`{"tools":[1]}`, `{"output":{"field":[{"n":"x"}]}}`, `{"nope":1}`, `{"name":"a"}]`, `{"name"`, ``, `[]`,
		`{"env":{"K":1}}`, `{"max":1.5}`, `{"name":"\ud800"}`, `{"on":"yes"} {}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v fuzzTarget
		err := Decode(data, &v)
		if err == nil {
			var w fuzzTarget
			if json.Unmarshal(data, &w) != nil {
				t.Fatalf("Decode accepted %q, which encoding/json refuses", data)
			}
			return
		}
		p := Explain(err, &v)
		if p.Err != err {
			t.Fatalf("Explain lost the error %v", err)
		}
		if (p.Kind == WrongField || p.Kind == WrongRoot) && p.Want == "" {
			t.Fatalf("Explain(%v) says what was wrong but not what belongs there: %+v", err, p)
		}
		_ = Explain(err, nil)
	})
}
