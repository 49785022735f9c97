package loopback_test

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/loopback"
)

func TestCheckBind_AnAddressBeyondThisMachineNeedsAToken(t *testing.T) {
	for _, c := range []struct {
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
		{"evil.localhost:8765", "", false}, // a name that is not "localhost" is not resolved, so not trusted
		{"0.0.0.0:8765", "secret", true},
		{"8765", "", false},
	} {
		err := loopback.CheckBind("--http", "127.0.0.1:8765", c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckBind(%q, token %v) = %v", c.addr, c.token != "", err)
		}
		if err != nil && !strings.Contains(err.Error(), "--http") {
			t.Errorf("CheckBind(%q): the sentence names no flag: %v", c.addr, err)
		}
	}
}

func TestCheckBind_SaysWhatToWrite(t *testing.T) {
	for addr, want := range map[string]string{
		"8765":         "write one like --http 127.0.0.1:8765",
		"0.0.0.0:8765": "pass --auth-token TOKEN (or set WFRUN_AUTH_TOKEN)",
		":8765":        "listens on every interface",
	} {
		if err := loopback.CheckBind("--http", "127.0.0.1:8765", addr, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckBind(%q) = %v, want it to say %q", addr, err, want)
		}
	}
}
