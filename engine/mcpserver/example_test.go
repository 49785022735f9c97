package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/mcpserver"
)

// Serve the tools to one MCP client over an in-memory pipe; a program
// would pass &mcp.StdioTransport{} instead, or serve Handler over HTTP.
func ExampleServer_Run() {
	eng, _ := engine.New(engine.Config{}) // agents run on the offline fake provider
	defer eng.Close(context.Background())
	srv := mcpserver.New(eng, mcpserver.Options{})

	serverSide, clientSide := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), serverSide) }()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	cs, err := client.Connect(context.Background(), clientSide, nil)
	if err != nil {
		panic(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "agent", Arguments: map[string]any{"prompt": "Say hi"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	cs.Close()
	<-done
	// Output: false Say hi
}
