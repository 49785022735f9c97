package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/testpki"
)

func TestTemporalE2E_TheConnectionFlagsAndVariablesReachATLSServer(t *testing.T) {
	pki := testpki.Write(t)
	addr := startTemporalDev(t, "mutual TLS", "--tls", pki)
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(pki, "none.toml"))

	flags := wfrun(t, "runs", "--address", addr, "--tls-ca-path", filepath.Join(pki, "ca.pem"), "--tls-server-name", "localhost",
		"--tls-cert-path", filepath.Join(pki, "client.pem"), "--tls-key-path", filepath.Join(pki, "client-key.pem"))
	flags.wantCode(t, exitCompleted)
	if !strings.Contains(flags.stdout, "No runs.") {
		t.Fatalf("runs over mutual TLS: %+v", flags)
	}

	plain := wfrun(t, "runs", "--temporal", addr)
	plain.wantCode(t, exitFailed)
	if !strings.Contains(plain.stderr, "cannot reach the Temporal server at "+addr+" (namespace default, plaintext)") {
		t.Fatalf("a plaintext client: %+v", plain)
	}

	// The Temporal CLI's variables, and --temporal config to use them.
	t.Setenv("TEMPORAL_ADDRESS", addr)
	t.Setenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH", filepath.Join(pki, "ca.pem"))
	t.Setenv("TEMPORAL_TLS_SERVER_NAME", "localhost")
	t.Setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", filepath.Join(pki, "client.pem"))
	t.Setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", filepath.Join(pki, "client-key.pem"))
	env := wfrun(t, "runs", "--temporal", "config", "--json")
	env.wantCode(t, exitCompleted)
	if !strings.Contains(env.stdout, `"runs"`) {
		t.Fatalf("runs from the environment: %+v", env)
	}
}
