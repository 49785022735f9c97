package temporal

import (
	"flag"

	fv "github.com/wfrun/wfrun/internal/flagvalue"
)

// ConnectionFlags are the names of the flags BindFlags defines.
var ConnectionFlags = []string{"address", "api-key", "tls", "tls-cert-path", "tls-key-path", "tls-ca-path", "tls-server-name", "profile", "config-file"}

// BindFlags defines on fs the connection flags as the Temporal CLI names
// them, with wfrun's help, each into its field of c: --address, --api-key,
// --tls (alone, or --tls=false), --tls-cert-path, --tls-key-path,
// --tls-ca-path, --tls-server-name, --profile and --config-file. A flag
// not given leaves its field to the profile and the TEMPORAL_* variables.
func (c *Connection) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Address, "address", "", "the frontend at `HOST:PORT`: the same as --temporal")
	fs.StringVar(&c.APIKey, "api-key", "", "sent as a bearer `KEY` on every call; turns TLS on unless --tls=false")
	fs.Var((*fv.BoolText)(&c.TLS), "tls", "TLS to the frontend (--tls=false: none), with the system's roots unless --tls-ca-path")
	fs.StringVar(&c.TLSCertPath, "tls-cert-path", "", "the client certificate `FILE` of mutual TLS, with --tls-key-path")
	fs.StringVar(&c.TLSKeyPath, "tls-key-path", "", "the client key `FILE` of mutual TLS")
	fs.StringVar(&c.TLSCAPath, "tls-ca-path", "", "the authority `FILE` the server's certificate must chain to")
	fs.StringVar(&c.TLSServerName, "tls-server-name", "", "the `NAME` the server's certificate must carry (SNI)")
	fs.StringVar(&c.Profile, "profile", "", "the temporal.toml profile, by `NAME`; alone it means --temporal config")
	fs.StringVar(&c.ConfigFile, "config-file", "", "the `FILE` of the profiles; alone it means --temporal config")
}
