package main

import (
	"flag"
	"io"
	"testing"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// The Temporal connection flags, bound by engine/temporal, reach the
// Connection wfrun dials: --address is --temporal, --profile alone means
// --temporal config, and the rest are copied as given.
func TestFlags_TheConnectionFlagsMakeTheConnection(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want wftemporal.Connection
	}{
		{[]string{"--address", "h:1", "--namespace", "ns", "--tls", "--api-key", "k", "--tls-cert-path", "c", "--tls-key-path", "kf",
			"--tls-ca-path", "ca", "--tls-server-name", "sni"},
			wftemporal.Connection{Address: "h:1", Namespace: "ns", TLS: "true", APIKey: "k", TLSCertPath: "c", TLSKeyPath: "kf", TLSCAPath: "ca", TLSServerName: "sni"}},
		{[]string{"--temporal", "h:2", "--tls=false"}, wftemporal.Connection{Address: "h:2", TLS: "false"}},
		{[]string{"--profile", "p", "--config-file", "f.toml"}, wftemporal.Connection{Profile: "p", ConfigFile: "f.toml"}},
	} {
		var f temporalFlags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.BindFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := f.ResolveFlags(given(fs)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := f.Conn(); got != tc.want {
			t.Errorf("%v: the connection is %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
