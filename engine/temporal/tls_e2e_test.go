package temporal_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/testkit/testpki"
)

// startTLSDevServer starts a dev server of its own, in memory, serving
// mutual TLS from pki, and returns its address.
func startTLSDevServer(t *testing.T, pki string) string {
	t.Helper()
	if server.hostPort == "" {
		t.Skip(server.skip)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(os.Getenv(devServerEnv), "dev", "--port", strconv.Itoa(port), "--tls", pki)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopServer(cmd)
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "mutual TLS") {
		t.Fatalf("the TLS dev server did not come up: %q %v", line, err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

func TestEndToEnd_AWorkerAndAClientRunOverMutualTLSAndPlaintextIsRefused(t *testing.T) {
	pki := testpki.Write(t)
	addr := startTLSDevServer(t, pki)
	opts := wftemporal.Options{TaskQueue: "q-tls", Payloads: wftemporal.DirStore{Dir: t.TempDir()}}
	// The environment is the Temporal CLI's: the address and the TLS files
	// come from TEMPORAL_* variables, as a deployment would set them.
	t.Setenv("TEMPORAL_ADDRESS", addr)
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(pki, "no-such.toml"))
	t.Setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", filepath.Join(pki, "client.pem"))
	t.Setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", filepath.Join(pki, "client-key.pem"))
	t.Setenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH", filepath.Join(pki, "ca.pem"))
	t.Setenv("TEMPORAL_TLS_SERVER_NAME", "localhost")
	c, err := wftemporal.DialConnection(wftemporal.Connection{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{newCounting(0)}, DefaultProvider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	w := wftemporal.NewWorker(c, eng, opts)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := wftemporal.NewClient(c, eng, opts).Execute(ctx, engine.WorkflowStartRequest{Parent: "tls",
		Script: "export const meta = {name: 'tls', description: 'one agent over TLS'}\nreturn await agent('hello')"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("the run over TLS ended %s: %+v", res.StopReason, res.Error)
	}

	refused := []struct {
		name string
		conn wftemporal.Connection
	}{
		{"plaintext", wftemporal.Connection{Address: addr, TLS: "false"}},
		{"TLS without a client certificate", wftemporal.Connection{Address: addr, TLSCAPath: filepath.Join(pki, "ca.pem"), TLSServerName: "localhost",
			TLSCertPath: "", TLSKeyPath: "", Env: emptyEnv{}}},
		{"a server certificate from another authority", wftemporal.Connection{Address: addr, TLSCAPath: filepath.Join(pki, "other-ca.pem"),
			TLSCertPath: filepath.Join(pki, "client.pem"), TLSKeyPath: filepath.Join(pki, "client-key.pem"), Env: emptyEnv{}}},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			c, err := wftemporal.DialConnection(r.conn, opts)
			if err == nil {
				c.Close()
				t.Fatalf("%s: the TLS server accepted the connection", r.name)
			}
			if !strings.Contains(err.Error(), "cannot reach the Temporal server at "+addr) {
				t.Fatalf("%s: error %v", r.name, err)
			}
		})
	}
}

// emptyEnv is an environment without TEMPORAL_* variables.
type emptyEnv struct{}

func (emptyEnv) Environ() []string               { return nil }
func (emptyEnv) LookupEnv(string) (string, bool) { return "", false }
