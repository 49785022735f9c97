// Package s3test starts a real S3-compatible server on loopback for the
// payload store's tests: versitygw with its posix back end, built from the
// nested module engine/temporal/s3server and named by WFRUN_S3_SERVER
// (.ci/run builds it). Without it the tests that need it are skipped.
// Test support only: nothing wfrun ships imports it.
package s3test

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env names the server binary.
const Env = "WFRUN_S3_SERVER"

// Server is one S3-compatible server a test started, with the bucket
// "payloads" in a fresh folder.
type Server struct {
	URL       string // the payload store's URL of the bucket
	Root      string // the server's folder
	Bucket    string // the bucket's folder: Bucket/KEY[:2]/KEY are the objects
	AccessKey string
	Secret    string
	none      string // a file that does not exist, for the AWS config paths
}

// Start starts the server of Env on a loopback port and waits until it
// accepts connections; it is stopped when t ends. It skips t without Env.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		t.Skip(Env + " is not set: build versitygw from the module engine/temporal/s3server (docs/scale-out.md) and name it there to run the S3 store's tests")
	}
	root := t.TempDir()
	s := &Server{Root: root, Bucket: filepath.Join(root, "payloads"), AccessKey: "wfrun-test",
		Secret: randomHex(16), none: filepath.Join(root, "none")}
	if err := os.Mkdir(s.Bucket, 0o700); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	s.URL = "s3://payloads?endpoint=http://" + addr + "&region=us-east-1"
	cmd := exec.Command(bin, "--port", addr, "posix", root)
	// The root credentials go in its environment, not its command line.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.Secret)
	banner := &lineWaiter{want: "http://" + addr, seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = banner, banner
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start the S3 server %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case <-banner.seen:
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("the S3 server exited before it listened: %v\n%s", err, banner.String())
	}
	// The banner comes as it starts listening: wait for the port itself,
	// or for the server's end.
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return s
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the S3 server at %s exited: %v\n%s", addr, err, banner.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Environ is the standard AWS environment of the server's credentials,
// for a child process: nothing of the machine's own AWS configuration.
func (s *Server) Environ() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.Secret,
		"AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_REGION=", "AWS_DEFAULT_REGION=",
		"AWS_CONFIG_FILE=" + s.none, "AWS_SHARED_CREDENTIALS_FILE=" + s.none, "AWS_EC2_METADATA_DISABLED=true"}
}

// Setenv puts Environ in the test's own environment (t.Setenv), for a
// store opened in the test's process.
func (s *Server) Setenv(t *testing.T) {
	for _, kv := range s.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// lineWaiter keeps a process's output and closes seen once it has shown
// want.
type lineWaiter struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
	done bool
}

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() < 1<<20 {
		w.buf.Write(p)
	}
	if !w.done && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *lineWaiter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
