// Package gittest makes real git repositories for tests: a folder with the
// files a test asks for, committed once, with a git configuration of its
// own so that the machine's (user.name, hooks, signing) never leaks in.
// Test code only.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Env is the environment git runs with here: the process's, without any
// global or system configuration.
func Env() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
}

// Git runs git in dir and returns its combined output, failing the test on
// an error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=wfrun test", "-c", "user.email=test@wfrun.invalid"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// Repo makes a repository in a fresh temporary folder with files (path →
// content; nil for none) on branch main, commits them, and returns the
// folder.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Commit(t, dir, "the workspace")
	return dir
}

// Commit makes dir a repository on branch main if it is not one yet, and
// commits everything in it (an empty commit when nothing changed).
func Commit(t testing.TB, dir, message string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		Git(t, dir, "init", "-q", "-b", "main")
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", message)
}
