// Package loopback decides whether the address a wfrun server is told to
// listen on stays on this machine. wfrun's servers (wfrun mcp --http,
// wfrun ui) bind to loopback unless they are given a token, and both ask
// here, so that one rule and one sentence serve both.
//
// It owns only that decision: it listens on nothing and reads no request.
// It imports nothing of wfrun's; the servers in engine/ import it.
package loopback

import (
	"fmt"
	"net"
)

// Host reports whether host, as written in a listen address, is a loopback
// one: "localhost" or a loopback IP (127.0.0.0/8, ::1). A name is never
// resolved: any other name could resolve to anything.
func Host(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckBind refuses addr, given as flag (such as "--http") and written like
// example, when it is not HOST:PORT, or when it listens beyond this machine
// and token is empty. The sentence says what to pass instead.
func CheckBind(flag, example, addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q is not HOST:PORT; write one like %s %s", flag, addr, flag, example)
	}
	if token != "" || Host(host) {
		return nil
	}
	if host == "" {
		host = "every interface"
	}
	return fmt.Errorf("%s %s listens on %s, not only on this machine: pass --auth-token TOKEN (or set WFRUN_AUTH_TOKEN) so that every request must carry it, or bind to 127.0.0.1", flag, addr, host)
}
