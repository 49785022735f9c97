package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writePKI writes a CA and the certificates it signed into a folder of
// its own: ca.pem, server.pem and server-key.pem (wfrun temporal dev --tls
// DIR's layout), client.pem and client-key.pem.
func writePKI(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	write("ca.pem", "CERTIFICATE", caDER)
	for i, name := range []string{"server", "client"} {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 2)), Subject: pkix.Name{CommonName: name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			DNSNames:    []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".pem", "CERTIFICATE", der)
		write(name+"-key.pem", "EC PRIVATE KEY", kder)
	}
	return dir
}

func TestTemporalE2E_TheConnectionFlagsAndVariablesReachATLSServer(t *testing.T) {
	bin := os.Getenv("WFRUN_TEMPORAL_DEV")
	if bin == "" {
		t.Skip("WFRUN_TEMPORAL_DEV is not set: build engine/temporal/server/cmd/wfrun-temporal (GOTOOLCHAIN=go1.27.3) and name it there")
	}
	pki := writePKI(t)
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
