package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/internal/loopback"
)

// sessionIdle is how long an HTTP session may go without a request before
// it is closed (and its runs cancelled): a client that follows a run calls
// workflow_wait at least every ten minutes.
const sessionIdle = time.Hour

// shutdownGrace bounds how long ServeHTTP waits for open requests (a
// foreground run being cancelled) once its context is done.
const shutdownGrace = 10 * time.Second

// CheckBind refuses an HTTP address that is not on a loopback interface
// (127.0.0.0/8, ::1, localhost) unless a bearer token protects it.
func CheckBind(addr, token string) error {
	return loopback.CheckBind("--http", "127.0.0.1:8765", addr, token)
}

// Handler returns the server as a streamable HTTP handler. With a token,
// a request without "Authorization: Bearer TOKEN" gets 401.
func (s *Server) Handler(token string) http.Handler {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle})
	if token != "" {
		verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				return nil, fmt.Errorf("%w: the bearer token is not the one wfrun mcp was started with", auth.ErrInvalidToken)
			}
			return &auth.TokenInfo{}, nil
		}
		h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return h
}

// ServeHTTP serves the streamable HTTP handler on l until ctx is done,
// then shuts the listener down, closes the sessions (cancelling their
// runs) and waits for them.
func (s *Server) ServeHTTP(ctx context.Context, l net.Listener, token string) error {
	srv := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		s.closeSessions()
		return err
	case <-ctx.Done():
	}
	s.closeSessions()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	s.ended.Wait()
	return err
}

// closeSessions closes every open session.
func (s *Server) closeSessions() {
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
}
