package temporal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// DevServerBinary is the dev server's program (wfrun temporal dev), built
// from the nested module engine/temporal/server, which needs a newer Go
// than this module: this package never links Temporal's server.
const DevServerBinary = "wfrun-temporal"

// FindDevServer returns the path of the dev server's program: beside the
// running program, else on PATH. When there is none, its error says how to
// build it.
func FindDevServer() (string, error) {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), DevServerBinary); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(DevServerBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("wfrun temporal dev runs the %s program, which is not beside wfrun or on PATH; build it from the module engine/temporal/server (it needs Go 1.26.10 or newer): cd engine/temporal/server && GOTOOLCHAIN=go1.27.3 go install ./cmd/%s", DevServerBinary, DevServerBinary)
}

// ExecDevServer runs the dev server's program bin in this process's place,
// with args ("dev", "--port", "7233", …) and this process's environment.
// It returns only when it could not.
func ExecDevServer(bin string, args []string) error {
	err := syscall.Exec(bin, append([]string{DevServerBinary}, args...), os.Environ())
	return fmt.Errorf("cannot run %s: %w", bin, err)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
