package temporal

import (
	"flag"
	"fmt"

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

// PayloadsUsage is the help of --payloads.
const PayloadsUsage = "the store, by `URL`, where payloads over 4 KiB are kept, a reference in the history: a folder (its path or file:///DIR; default ~/.wfrun/temporal-payloads) or s3://BUCKET?endpoint=URL&region=R, with the credentials of the AWS environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE); every worker and client of a task queue must share it"

// BindFlags defines on fs wfrun's flags of a command that runs on
// Temporal, each into its field of t: the server's (BindServerFlags),
// --task-queue and --payloads.
func (t *Target) BindFlags(fs *flag.FlagSet) {
	t.BindServerFlags(fs)
	fv.Text(fs, &t.TaskQueue, "task-queue", "the queue, by `NAME`, where runs and their agents wait (default \"wfrun\"); a client and its workers must name the same one")
	fv.Text(fs, &t.Payloads, "payloads", PayloadsUsage)
}

// BindServerFlags defines --temporal, --namespace and the connection
// flags (Connection.BindFlags): what a command that only asks the server
// takes (wfrun runs --temporal, with --payloads wfrun temporal gc).
func (t *Target) BindServerFlags(fs *flag.FlagSet) {
	fv.Text(fs, &t.Server, "temporal", "the frontend of the Temporal server at `HOST:PORT` (wfrun temporal dev: 127.0.0.1:7233), or config to take it from TEMPORAL_ADDRESS or a temporal.toml profile. A run with --temporal leaves the providers' flags (--fake-rules, --base-url, --workspace, …) to the workers; --provider and --model still choose among theirs")
	fv.Text(fs, &t.Namespace, "namespace", "the Temporal namespace, by `NAME` (default \"default\")")
	t.Connection.BindFlags(fs)
}

// ResolveFlags is Resolve, then, when no server is named, the refusal of
// a flag among given (the names of the flags given) that needs one:
// --namespace, --task-queue, --payloads and the connection flags.
func (t *Target) ResolveFlags(given map[string]bool) error {
	if err := t.Resolve(); err != nil || t.Server != "" {
		return err
	}
	for _, name := range append([]string{"namespace", "task-queue", "payloads"}, ConnectionFlags...) {
		if given[name] {
			return fmt.Errorf("--%s goes with --temporal HOST:PORT (or --address, --profile), which names the Temporal server; add it or drop --%s", name, name)
		}
	}
	return nil
}

// Connected reports whether any connection flag but --namespace was
// given: the ones that only a command that reaches a server takes.
func (t *Target) Connected() bool {
	c := t.Connection
	c.Namespace = ""
	return c != Connection{}
}
