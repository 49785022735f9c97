package testbin

import (
	"os/exec"
	"testing"
	"time"
)

func TestChildrenSeesALiveChildAndItsZombie(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep to run:", err)
	}
	if _, ok := Children(); !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Skip("no /proc")
	}
	if live := LiveChildren(0); len(live) != 1 || live[0].PID != cmd.Process.Pid || live[0].Name != "sleep" {
		t.Fatalf("live children %v, want only sleep %d", live, cmd.Process.Pid)
	}
	_ = cmd.Process.Kill()
	// Killed but not reaped: a zombie, which LiveChildren no longer counts.
	if live := LiveChildren(2 * time.Second); len(live) != 0 {
		t.Fatalf("a killed child still counted live: %v", live)
	}
	kids, _ := Children()
	if len(kids) != 1 || !kids[0].Zombie {
		t.Fatalf("children %v, want the one zombie", kids)
	}
	_ = cmd.Wait()
	if kids, _ := Children(); len(kids) != 0 {
		t.Fatalf("children after Wait: %v", kids)
	}
}

func TestBuildNamesTheProgramAfterItsPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := BuildT(t, "github.com/wfrun/wfrun/internal/testkit/testmcp")
	if got := bin[len(bin)-len("/testmcp"):]; got != "/testmcp" {
		t.Fatalf("built %s", bin)
	}
	if _, err := Build(t.TempDir(), "github.com/wfrun/wfrun/internal/nosuchpackage"); err == nil {
		t.Fatal("a missing package built")
	}
}
