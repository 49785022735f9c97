package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/testpki"
)

func TestTemporalE2E_TheConnectionFlagsAndVariablesReachATLSServer(t *testing.T) {
	bin := os.Getenv("WFRUN_TEMPORAL_DEV")
	if bin == "" {
		t.Skip("WFRUN_TEMPORAL_DEV is not set: build engine/temporal/server/cmd/wfrun-temporal (GOTOOLCHAIN=go1.27.3) and name it there")
	}
	pki := testpki.Write(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "dev", "--port", strconv.Itoa(port), "--tls", pki)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, "mutual TLS") {
		t.Fatalf("the TLS dev server did not come up: %q %v", line, err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
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
