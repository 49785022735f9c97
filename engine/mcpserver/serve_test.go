package mcpserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine/mcpserver"
)

func TestStart_StdioEndsQuietlyWhenTheClientClosesItsInput(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{Owner: mcpserver.StdioOwner})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	addr, served, err := s.Start(context.Background(), mcpserver.Endpoint{In: inR, Out: outW})
	if err != nil || addr != nil {
		t.Fatalf("stdio: %v %v", addr, err)
	}
	_ = inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("the end of stdio: %v", err)
	}
	_ = outW.Close()
}

func TestStart_HTTPServesUntilTheContextIsDone(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, served, err := s.Start(ctx, mcpserver.Endpoint{Addr: "127.0.0.1:0", Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	ht := &http.Transport{}
	defer ht.CloseIdleConnections()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr.String() + "/", HTTPClient: &http.Client{Transport: bearer{"s3cret", ht}}}
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("the end of HTTP: %v", err)
	}

	// An address that is taken is refused with the flag's name.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, _, err := s.Start(context.Background(), mcpserver.Endpoint{Addr: l.Addr().String()}); err == nil || !strings.Contains(err.Error(), "--http "+l.Addr().String()+": cannot listen") {
		t.Fatalf("a taken address: %v", err)
	}
}

func TestEndpoint_CheckRefusesAnExposedAddressWithoutATokenAndATokenOnStdio(t *testing.T) {
	for _, c := range []struct {
		ep   mcpserver.Endpoint
		want string // "" accepted
	}{
		{mcpserver.Endpoint{}, ""},
		{mcpserver.Endpoint{Token: "t"}, "--auth-token protects --http"},
		{mcpserver.Endpoint{Addr: "127.0.0.1:8765"}, ""},
		{mcpserver.Endpoint{Addr: "0.0.0.0:8765"}, "--http"},
		{mcpserver.Endpoint{Addr: "0.0.0.0:8765", Token: "t"}, ""},
	} {
		err := c.ep.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.ep, err, c.want)
		}
	}
}
