package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/setup"
)

var update = flag.Bool("update", false, "rewrite testdata/help.golden")

func TestHelpMatchesTheGoldenFile(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"testdata/hello.js", "--help"}, {"run", "--help"}} {
		o := wfrun(t, args...)
		o.wantCode(t, exitCompleted)
		if *update && args[0] == "--help" {
			if err := os.WriteFile("testdata/help.golden", []byte(o.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile("testdata/help.golden")
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if o.stdout != string(want) {
			t.Errorf("wfrun %q differs from testdata/help.golden; run go test -update and review the diff", args)
		}
	}
}

func TestEveryCommandsHelpExplainsEachOfItsFlags(t *testing.T) {
	full := usage()
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		o := wfrun(t, c.name, "--help")
		o.wantCode(t, exitCompleted)
		if c.name != "run" && !strings.HasPrefix(o.stdout, "usage: wfrun "+c.use+"\n") {
			t.Errorf("wfrun %s --help does not start with its usage line:\n%s", c.name, o.stdout)
		}
		fs, _ := c.flagSet()
		fs.VisitAll(func(f *flag.Flag) {
			explained := strings.Contains(o.stdout, "  --"+f.Name+" ") || strings.Contains(o.stdout, "  --"+f.Name+"\n") ||
				strings.Contains(o.stdout, "| --"+f.Name+"\n") // wfrun --help | --version
			if !explained {
				t.Errorf("wfrun %s --help does not explain --%s", c.name, f.Name)
			}
			if !strings.Contains(full, "--"+f.Name) {
				t.Errorf("wfrun --help does not explain --%s (%s)", f.Name, c.name)
			}
			if value, _ := flag.UnquoteUsage(f); value == "value" {
				t.Errorf("--%s of %s names no value in its help: write it in `backquotes`", f.Name, c.name)
			}
		})
		if !strings.Contains(full, "wfrun "+c.use) {
			t.Errorf("wfrun --help does not list wfrun %s", c.use)
		}
	}
	for _, field := range setup.RequestFields() {
		if !strings.Contains(full, " "+field+",") && !strings.Contains(full, " "+field+";") {
			t.Errorf("the help of --request does not name the request's field %s", field)
		}
	}
	for _, code := range []string{"0 ", "1 ", "2 ", "130 "} {
		if !strings.Contains(full, "\n  "+code) {
			t.Errorf("the usage text does not explain exit status %s", code)
		}
	}
	// Prose wraps at helpWidth; an example is kept as written, a little wider.
	for _, line := range strings.Split(full, "\n") {
		if len([]rune(line)) > helpWidth+12 {
			t.Errorf("a line of the help is wider than %d columns: %q", helpWidth+12, line)
		}
	}
}

func TestThePackageDocListsEveryCommand(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		name := regexp.QuoteMeta(c.name)
		if !regexp.MustCompile(`(?m)^//\twfrun (` + name + `|\[` + name + `\])( |$)`).Match(doc) {
			t.Errorf("doc.go does not list the command %s on a line of its own (//\twfrun %s …)", c.name, c.name)
		}
	}
}

func TestVersionPrintsOneLine(t *testing.T) {
	o := wfrun(t, "--version")
	o.wantCode(t, exitCompleted)
	if !strings.HasPrefix(o.stdout, "wfrun ") || strings.Count(o.stdout, "\n") != 1 {
		t.Errorf("--version = %q", o.stdout)
	}
}

func TestAFlagACommandDoesNotTakeIsRefusedNamingTheCommandsThatDo(t *testing.T) {
	all := map[string]bool{}
	for _, c := range commands() {
		if c.flags != nil {
			fs, _ := c.flagSet()
			fs.VisitAll(func(f *flag.Flag) { all[f.Name] = true })
		}
	}
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		fs, _ := c.flagSet()
		for name := range all {
			if fs.Lookup(name) != nil {
				continue
			}
			var stdout, stderr strings.Builder
			code := c.invoke([]string{"--" + name + "=x"}, env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
			if code != exitUsage || stdout.Len() != 0 {
				t.Fatalf("wfrun %s --%s=x: exit %d, stdout %q; want exit 2 and nothing on stdout", c.name, name, code, stdout.String())
			}
			said := stderr.String()
			if !strings.Contains(said, "--"+name+" does not apply to "+c.title()) || !strings.Contains(said, "it belongs to wfrun ") {
				t.Errorf("wfrun %s --%s: stderr %q, want it to say that --%s does not apply and who takes it", c.name, name, said, name)
			}
		}
	}
}
