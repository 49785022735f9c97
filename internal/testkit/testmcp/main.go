// Command testmcp is a small MCP server for wfrun's tests, built with the
// official Go SDK. It serves over stdin/stdout until stdin closes.
//
// Tools:
//
//	add    {a, b: number}   → the sum, as text ("5")
//	echo   {text: string}   → the text
//	fail   {}               → always an error result ("fail: this tool always fails")
//	env    {name: string}   → the value of an environment variable
//	pid    {}               → the server's process id
//	stats  {}               → how many tools/list requests it has served ("tools/list: 1")
//	sleep  {ms: number}     → waits ms milliseconds (or until the call is cancelled), then "slept"
//	picture {}              → a text part and a small PNG image part
//
// Flags:
//
//	-crash MESSAGE   write MESSAGE to stderr and exit with status 3 before serving
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	crash := flag.String("crash", "", "write this to stderr and exit 3 instead of serving")
	flag.Parse()
	if *crash != "" {
		fmt.Fprintln(os.Stderr, *crash)
		os.Exit(3)
	}
	if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		log.Fatalf("testmcp: %v", err)
	}
}

type (
	addIn struct {
		A float64 `json:"a" jsonschema:"the first addend"`
		B float64 `json:"b" jsonschema:"the second addend"`
	}
	echoIn struct {
		Text string `json:"text"`
	}
	envIn struct {
		Name string `json:"name"`
	}
	sleepIn struct {
		MS int `json:"ms"`
	}
	none struct{}
)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "v1"}, nil)

	var lists atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("fail: this tool always fails")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Returns an environment variable."},
		func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(in.Name)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "stats", Description: "Counts tools/list requests."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprintf("tools/list: %d", lists.Load())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Waits ms milliseconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "Returns a caption and an image."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			png := []byte("\x89PNG\r\n\x1a\nnot really")
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red dot"},
				&mcp.ImageContent{MIMEType: "image/png", Data: png},
			}}, nil, nil
		})
	return s
}
