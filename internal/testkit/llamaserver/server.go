package llamaserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The variables that point the suite at a built server (scripts/llama-server.sh
// prints the folder that holds all three).
const (
	EnvServer   = "WFRUN_LLAMA_SERVER"   // the llama-server binary
	EnvVocab    = "WFRUN_LLAMA_VOCAB"    // a vocabulary-only GGUF: ggml-vocab-qwen2.gguf
	EnvTemplate = "WFRUN_LLAMA_TEMPLATE" // a chat template: Qwen-Qwen2.5-7B-Instruct.jinja
)

// Paths are the three files the suite needs.
type Paths struct{ Server, Vocab, Template string }

// Find reads the three variables. Without WFRUN_LLAMA_SERVER it skips t;
// the other two default to files of the same names beside the binary,
// which is where scripts/llama-server.sh puts them.
func Find(t testing.TB) Paths {
	t.Helper()
	bin := os.Getenv(EnvServer)
	if bin == "" {
		t.Skipf("%s is not set: the llama-server suite is a long suite (scripts/llama-server.sh builds the server; docs/testing.md)", EnvServer)
	}
	dir := filepath.Dir(bin)
	p := Paths{Server: bin, Vocab: os.Getenv(EnvVocab), Template: os.Getenv(EnvTemplate)}
	if p.Vocab == "" {
		p.Vocab = filepath.Join(dir, "ggml-vocab-qwen2.gguf")
	}
	if p.Template == "" {
		p.Template = filepath.Join(dir, "Qwen-Qwen2.5-7B-Instruct.jinja")
	}
	for _, f := range []string{p.Server, p.Vocab, p.Template} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the llama-server suite needs %s: %v (scripts/llama-server.sh prints the folder that holds it)", f, err)
		}
	}
	return p
}

// ModelFile generates the model for p in t's temporary folder.
func ModelFile(t testing.TB, p Paths) string {
	t.Helper()
	tmpl, err := os.ReadFile(p.Template)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "tiny-random.gguf")
	if err := WriteModel(f, p.Vocab, string(tmpl), DefaultModel); err != nil {
		t.Fatalf("generating the model: %v", err)
	}
	return f
}

// Options are the server's settings that tests vary.
type Options struct {
	CtxSize int // --ctx-size; 0: 4096
	Predict int // --n-predict, the default output limit of a request; 0: 64
}

// Server is a running llama-server.
type Server struct {
	URL     string // http://127.0.0.1:PORT
	BaseURL string // URL + "/v1", for OPENAI_BASE_URL
	Version string // what --version printed
	log     string
}

// Log is what the server has printed so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// Start starts llama-server on a free loopback port serving the generated
// model, waits until its /health answers 200, and stops it when t ends.
// It skips t when the suite is not configured (see Find).
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	p := Find(t)
	model := ModelFile(t, p)
	if o.CtxSize == 0 {
		o.CtxSize = 4096
	}
	if o.Predict == 0 {
		o.Predict = 64
	}
	ver, _ := exec.Command(p.Server, "--version").CombinedOutput()
	var lastErr error
	for try := 0; try < 3; try++ { // a free port can be taken between probe and bind
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s, err := start(t, p.Server, model, port, o)
		if err == nil {
			s.Version = versionLine(ver)
			return s
		}
		lastErr = err
	}
	t.Fatalf("llama-server did not start: %v", lastErr)
	return nil
}

func start(t testing.TB, bin, model string, port int, o Options) (*Server, error) {
	logPath := filepath.Join(t.TempDir(), "llama-server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin,
		"--model", model,
		"--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--ctx-size", strconv.Itoa(o.CtxSize), "--parallel", "1", "--fit", "off",
		"--n-predict", strconv.Itoa(o.Predict),
		"--jinja", "--temp", "0", "--seed", "1",
		"--threads", "1", "--threads-batch", "1", "--no-warmup", "--no-webui",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), log: logPath}
	s.BaseURL = s.URL + "/v1"
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second): // a server that ignores SIGTERM
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go func() {
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					close(ready)
					return
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	select {
	case <-ready:
		t.Cleanup(stop)
		return s, nil
	case err := <-exited:
		cancel()
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("llama-server exited before it was ready (%v):\n%s", err, tail(log))
	}
}

// versionLine is the "version: …" line of --version's output.
func versionLine(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "version: "); ok {
			return v
		}
	}
	return strings.TrimSpace(string(out))
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("not a TCP address")
	}
	return addr.Port, nil
}
