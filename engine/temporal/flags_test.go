package temporal

import (
	"flag"
	"io"
	"slices"
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
