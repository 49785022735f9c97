package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
)

func ExampleNew() {
	// testmcp is the path of a small MCP server built for these tests; in
	// wfrun the config comes from --mcp-config through Load.
	cfg, err := Parse([]byte(`{"mcpServers": {"calc": {"command": "` + testmcp + `"}}}`))
	if err != nil {
		log.Fatal(err)
	}
	tb, err := New(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer tb.Close()

	tools, _ := tb.Tools(context.Background())
	fmt.Println(tools[0].Name)

	sum, err := tb.Call(context.Background(), "mcp__calc__add", json.RawMessage(`{"a": 2, "b": 3}`))
	fmt.Println(sum, err)

	_, err = tb.Call(context.Background(), "mcp__calc__fail", nil)
	fmt.Println("tool failure:", err)
	// Output:
	// mcp__calc__add
	// 5 <nil>
	// tool failure: fail: this tool always fails
}
