package loopback_test

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/loopback"
)

func TestHost_TrustsOnlyLoopbackAddressesAndTheNameLocalhost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":        true,
		"127.0.0.1":        true,
		"127.8.9.10":       true, // all of 127.0.0.0/8
		"::1":              true,
		"::ffff:127.0.0.1": true,  // IPv4-mapped
		"":                 false, // every interface
		"0.0.0.0":          false,
		"::":               false,
		"10.0.0.1":         false,
		"evil.localhost":   false, // a listen address's name is resolved like any other
		"LOCALHOST.":       false,
		"example.com":      false,
	} {
		if got := loopback.Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestCheckBind_ATokenOpensEveryAddressButNotAMalformedOne(t *testing.T) {
	if err := loopback.CheckBind("--addr", "127.0.0.1:7777", "0.0.0.0:7777", "s3cret"); err != nil {
		t.Errorf("with a token, every interface is refused: %v", err)
	}
	if err := loopback.CheckBind("--addr", "127.0.0.1:7777", "7777", "s3cret"); err == nil {
		t.Error("with a token, an address with no host part is accepted")
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
