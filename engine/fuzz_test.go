package engine_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

// FuzzRequest: a JSON request, as wfrun --request and the workflow tool
// take it, is decoded strictly and checked without a panic; a refused one
// has a code and a sentence, and nothing runs.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"script":"export const meta = {name:'n', description:'d'}\nreturn 1","parent":"p"}`,
		`{"script":"return await agent('x', {model: 'haiku', schema: {type: 'object'}})","meta":{"name":"n","description":"d"},"parent":"p"}`,
		`{"script":"x","parent":"","maxTotalAgents":-1,"isolate":"docker"}`,
		`{"script":"return 1","meta":{"name":1},"args":{"a":[1,2]},"parent":"p","concurrency":100000,"maxMemoryBytes":1}`,
		`{"unknown":true}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	eng, err := engine.New(engine.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req engine.WorkflowStartRequest
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&req) != nil {
			return
		}
		res := eng.Check(req)
		if !res.OK && (res.ErrorCode == "" || res.Error == "") {
			t.Fatalf("Check(%s) refused without a code or a sentence: %+v", data, res)
		}
		if res.OK && res.Meta == nil {
			t.Fatalf("Check(%s) passed without meta", data)
		}
	})
}
