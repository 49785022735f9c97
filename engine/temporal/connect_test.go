package temporal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mapEnv is an environment for Connection.Env.
type mapEnv map[string]string

func (m mapEnv) Environ() []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func (m mapEnv) LookupEnv(k string) (string, bool) { v, ok := m[k]; return v, ok }

func TestConnection_FollowsTheTemporalCLIsConventions(t *testing.T) {
	dir := t.TempDir()
	toml := filepath.Join(dir, "temporal.toml")
	if err := os.WriteFile(toml, []byte(`
[profile.default]
address = "file-default:7233"
namespace = "ns-file"

[profile.prod]
address = "prod.example:7233"
namespace = "ns-prod"
api_key = "from-file"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name          string
		conn          Connection
		addr, ns      string
		tls, apiKey   bool
		wantErrSubstr string
	}{
		{name: "nothing anywhere", conn: Connection{Env: mapEnv{"TEMPORAL_CONFIG_FILE": filepath.Join(dir, "none.toml")}}, addr: DefaultAddress, ns: "default"},
		{name: "the default profile", conn: Connection{ConfigFile: toml, Env: mapEnv{}}, addr: "file-default:7233", ns: "ns-file"},
		{name: "the environment over the profile", conn: Connection{ConfigFile: toml, Env: mapEnv{"TEMPORAL_ADDRESS": "env:1", "TEMPORAL_NAMESPACE": "ns-env"}}, addr: "env:1", ns: "ns-env"},
		{name: "the flags over the environment", conn: Connection{Address: "flag:2", ConfigFile: toml, Env: mapEnv{"TEMPORAL_ADDRESS": "env:1"}}, addr: "flag:2", ns: "ns-file"},
		{name: "a profile by name with an API key turns TLS on", conn: Connection{Profile: "prod", ConfigFile: toml, Env: mapEnv{}}, addr: "prod.example:7233", ns: "ns-prod", tls: true, apiKey: true},
		{name: "TEMPORAL_PROFILE", conn: Connection{ConfigFile: toml, Env: mapEnv{"TEMPORAL_PROFILE": "prod"}}, addr: "prod.example:7233", ns: "ns-prod", tls: true, apiKey: true},
		{name: "an API key with TLS off", conn: Connection{APIKey: "k", TLS: "false", Env: mapEnv{}, ConfigFile: toml}, addr: "file-default:7233", ns: "ns-file", apiKey: true},
		{name: "TEMPORAL_TLS", conn: Connection{Env: mapEnv{"TEMPORAL_TLS": "true"}, ConfigFile: toml}, addr: "file-default:7233", ns: "ns-file", tls: true},
		{name: "a CA file turns TLS on", conn: Connection{TLSCAPath: toml, Env: mapEnv{}, ConfigFile: toml}, wantErrSubstr: "not usable"},
		{name: "a missing profile", conn: Connection{Profile: "nope", ConfigFile: toml, Env: mapEnv{}}, wantErrSubstr: "--profile"},
		{name: "a certificate without its key", conn: Connection{TLSCertPath: "c.pem", Env: mapEnv{}, ConfigFile: toml}, wantErrSubstr: "--tls-key-path"},
		{name: "tls neither true nor false", conn: Connection{TLS: "maybe", Env: mapEnv{}, ConfigFile: toml}, wantErrSubstr: "not true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := c.conn.ClientOptions()
			if c.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErrSubstr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErrSubstr)
				}
				if ns := c.conn.ResolvedNamespace(); ns != c.conn.Namespace {
					t.Errorf("ResolvedNamespace() = %q of a connection that does not resolve, want its own %q", ns, c.conn.Namespace)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.HostPort != c.addr || o.Namespace != c.ns {
				t.Errorf("address %q namespace %q, want %q %q", o.HostPort, o.Namespace, c.addr, c.ns)
			}
			if ns := c.conn.ResolvedNamespace(); ns != c.ns {
				t.Errorf("ResolvedNamespace() = %q, want %q", ns, c.ns)
			}
			if secure(o) != c.tls {
				t.Errorf("TLS %v, want %v", secure(o), c.tls)
			}
			if (o.Credentials != nil) != c.apiKey {
				t.Errorf("API key set %v, want %v", o.Credentials != nil, c.apiKey)
			}
		})
	}
}
