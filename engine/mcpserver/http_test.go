package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine/mcpserver"
)

func TestCheckBind_ANonLoopbackAddressNeedsAToken(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8765", "", true},
		{"127.0.0.2:0", "", true},
		{"[::1]:8765", "", true},
		{"localhost:8765", "", true},
		{"0.0.0.0:8765", "", false},
		{":8765", "", false},
		{"192.0.2.10:8765", "", false},
		{"example.com:8765", "", false},
		{"0.0.0.0:8765", "secret", true},
		{"8765", "", false},
	} {
		err := mcpserver.CheckBind(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckBind(%q, %q) = %v", tc.addr, tc.token, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--") {
			t.Errorf("CheckBind(%q): the sentence names no flag: %v", tc.addr, err)
		}
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func TestHTTP_ARequestWithoutTheTokenGets401(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	srv := httptest.NewServer(s.Handler("s3cret"))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, auth := range []string{"", "Bearer wrong", "Basic czNjcmV0"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
}

func TestHTTP_AClientWithTheTokenCallsTheTools(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, l, "s3cret") }()
	defer func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("ServeHTTP did not return within 15s of its context")
		}
	}()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ct := &mcp.StreamableClientTransport{Endpoint: "http://" + l.Addr().String(), HTTPClient: &http.Client{Transport: bearer{"s3cret", tr}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{
		"script": "export const meta = { name: 'hi', description: 'x' }\nreturn await agent('hello over http')"}})
	if err != nil || res.IsError || !strings.HasSuffix(text(res), `"hello over http"`) {
		t.Fatalf("%v %s", err, text(res))
	}
}
