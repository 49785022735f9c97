package temporal

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
)

// Connection says how to reach a Temporal cluster, with the Temporal
// CLI's conventions: a profile of a temporal.toml file (ConfigFile, else
// TEMPORAL_CONFIG_FILE, else the user's config folder's
// temporalio/temporal.toml; Profile, else TEMPORAL_PROFILE, else
// "default"), then the TEMPORAL_* environment variables over it
// (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
// TEMPORAL_TLS_CLIENT_CERT_PATH, ...), then the fields set here over both.
// The zero value is the environment and the default profile, or
// 127.0.0.1:7233 and the namespace "default" when they say nothing.
type Connection struct {
	// Address is the frontend's HOST:PORT.
	Address string
	// Namespace; "" takes the profile's, else "default".
	Namespace string
	// APIKey is sent as a bearer token on every call; it turns TLS on
	// unless TLS is explicitly off.
	APIKey string
	// TLS turns TLS on ("true") or off ("false"); "" leaves it to the
	// profile, the API key and the other TLS fields (any of them set turns
	// it on).
	TLS string
	// TLSCertPath and TLSKeyPath are the client certificate and its key of
	// mutual TLS (both or neither).
	TLSCertPath, TLSKeyPath string
	// TLSCAPath is the authority the server's certificate must chain to;
	// "" trusts the system's roots.
	TLSCAPath string
	// TLSServerName overrides the name the server's certificate must carry.
	TLSServerName string
	// Profile and ConfigFile pick the temporal.toml profile.
	Profile, ConfigFile string
	// Env looks the environment up; nil is the process's.
	Env envconfig.EnvLookup
	// only: the fields alone, no profile file, no environment (Dial).
	only bool
}

// DefaultAddress is the address of a Connection that names none.
const DefaultAddress = "127.0.0.1:7233"

// ClientOptions resolves the connection into the SDK's client options
// (without the data converter, which Dial adds).
func (c Connection) ClientOptions() (client.Options, error) {
	prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath: c.ConfigFile, ConfigFileProfile: c.Profile, EnvLookup: c.Env, DisableFile: c.only,
	})
	if err != nil {
		return client.Options{}, fmt.Errorf("cannot read the Temporal connection's profile: %w; check --config-file and --profile (or TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE)", err)
	}
	if c.Address != "" {
		prof.Address = c.Address
	}
	if c.Namespace != "" {
		prof.Namespace = c.Namespace
	}
	if c.APIKey != "" {
		prof.APIKey = c.APIKey
	}
	files := c.TLSCertPath != "" || c.TLSKeyPath != "" || c.TLSCAPath != "" || c.TLSServerName != ""
	switch strings.ToLower(c.TLS) {
	case "":
	case "true", "1", "yes", "on":
		if prof.TLS == nil {
			prof.TLS = &envconfig.ClientConfigTLS{}
		}
		prof.TLS.Disabled = false
	case "false", "0", "no", "off":
		if files {
			return client.Options{}, fmt.Errorf("--tls false and a TLS file or server name contradict each other; drop one")
		}
		prof.TLS = &envconfig.ClientConfigTLS{Disabled: true}
	default:
		return client.Options{}, fmt.Errorf("--tls %q is not true or false", c.TLS)
	}
	if files {
		if prof.TLS == nil {
			prof.TLS = &envconfig.ClientConfigTLS{}
		}
		prof.TLS.Disabled = false
		if c.TLSCertPath != "" || c.TLSKeyPath != "" {
			if c.TLSCertPath == "" || c.TLSKeyPath == "" {
				return client.Options{}, fmt.Errorf("a client certificate needs both --tls-cert-path and --tls-key-path; give both or neither")
			}
			prof.TLS.ClientCertPath, prof.TLS.ClientKeyPath = c.TLSCertPath, c.TLSKeyPath
			prof.TLS.ClientCertData, prof.TLS.ClientKeyData = nil, nil
		}
		if c.TLSCAPath != "" {
			prof.TLS.ServerCACertPath, prof.TLS.ServerCACertData = c.TLSCAPath, nil
		}
		if c.TLSServerName != "" {
			prof.TLS.ServerName = c.TLSServerName
		}
	}
	if prof.Address == "" {
		prof.Address = DefaultAddress
	}
	if prof.Namespace == "" {
		prof.Namespace = DefaultNamespace
	}
	opts, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("the Temporal connection's TLS settings are not usable: %w", err)
	}
	return opts, nil
}

// secure says whether the resolved options use TLS.
func secure(o client.Options) bool {
	return o.ConnectionOptions.TLS != nil && !o.ConnectionOptions.TLSDisabled
}

// DialConnection connects as conn says, with the data converter that
// keeps large payloads in opts.Payloads.
func DialConnection(conn Connection, opts Options) (client.Client, error) {
	co, err := conn.ClientOptions()
	if err != nil {
		return nil, err
	}
	co.DataConverter = NewDataConverter(opts.store())
	co.Logger = quietLogger{}
	c, err := client.Dial(co)
	if err != nil {
		how := "plaintext"
		if secure(co) {
			how = "TLS"
		}
		return nil, fmt.Errorf("cannot reach the Temporal server at %s (namespace %s, %s): %w; start one with `wfrun temporal dev`, or check the address, --tls and its certificates, or the API key", co.HostPort, co.Namespace, how, err)
	}
	return c, nil
}
