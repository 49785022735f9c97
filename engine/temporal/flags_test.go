package temporal

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestConnectionBindFlags(t *testing.T) {
	var c Connection
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if !slices.Equal(names, slices.Sorted(slices.Values(ConnectionFlags))) {
		t.Errorf("BindFlags defines %v, ConnectionFlags says %v", names, ConnectionFlags)
	}
	if err := fs.Parse([]string{"--address", "h:1", "--tls", "--api-key", "k", "--tls-ca-path", "ca.pem", "--profile", "p"}); err != nil {
		t.Fatal(err)
	}
	want := Connection{Address: "h:1", TLS: "true", APIKey: "k", TLSCAPath: "ca.pem", Profile: "p"}
	if c != want {
		t.Errorf("BindFlags read %+v, want %+v", c, want)
	}
	c = Connection{}
	if err := fs.Parse([]string{"--tls=false"}); err != nil || c.TLS != "false" {
		t.Errorf("--tls=false read TLS %q (%v), want false", c.TLS, err)
	}
}

func TestTarget_BindFlagsAndResolveFlags(t *testing.T) {
	parse := func(args ...string) (*Target, map[string]bool) {
		t.Helper()
		var tg Target
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		tg.BindFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		return &tg, given
	}
	tg, given := parse("--temporal", "h:1", "--namespace", "ns", "--task-queue", "q", "--payloads", "/p", "--api-key", "k")
	if err := tg.ResolveFlags(given); err != nil {
		t.Fatal(err)
	}
	if tg.Server != "h:1" || tg.TaskQueue != "q" || tg.Payloads != "/p" || tg.Conn() != (Connection{Address: "h:1", Namespace: "ns", APIKey: "k"}) || !tg.Connected() {
		t.Fatalf("target %+v", tg)
	}
	for _, name := range []string{"namespace", "task-queue", "payloads", "tls-ca-path"} {
		tg, given := parse("--"+name, "x")
		if err := tg.ResolveFlags(given); err == nil || !strings.Contains(err.Error(), "--"+name+" goes with --temporal") {
			t.Errorf("--%s without a server: %v", name, err)
		}
	}
	if tg, _ := parse("--namespace", "ns"); tg.Connected() {
		t.Error("--namespace alone counts as a connection flag")
	}
}
