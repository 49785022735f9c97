package minimal_test

import (
	"encoding/json"
	"fmt"

	"github.com/wfrun/wfrun/agentapi/fake/minimal"
	"github.com/wfrun/wfrun/agentapi/schema"
)

func ExampleValue() {
	s, err := schema.Compile(json.RawMessage(`{
		"type": "object",
		"properties": {
			"severity": {"enum": ["low", "medium", "high"]},
			"title": {"type": "string", "minLength": 3},
			"line": {"type": "integer", "minimum": 1},
			"note": {"type": "string"}
		},
		"required": ["title", "severity", "line"]
	}`))
	if err != nil {
		panic(err)
	}
	v, err := minimal.Value(s)
	fmt.Println(string(v), err)
	// Output: {"severity":"low","title":"aaa","line":1} <nil>
}
