// Package devserver runs a whole Temporal server in one process, from
// Temporal's own server packages, with SQLite for persistence: the
// frontend, history, matching and worker services on loopback ports, one
// history shard, no archival, no UI. It is what `temporal server
// start-dev` does, small enough to ship with wfrun (as the
// wfrun-temporal binary) so that trying the distributed mode needs no
// install: start it, start a worker, submit a run.
//
// It lives in a module of its own because the server needs a newer Go
// than wfrun's main module, and nothing in the main module imports it;
// the two meet only over the network, as any worker and server do.
//
// Every namespace it creates has wfrun's search attributes (WfrunName,
// WfrunParent, WfrunStatus, Keyword), so `wfrun runs --temporal` can list
// runs at once.
package devserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// SearchAttributes are the custom search attributes every namespace of the
// dev server has: wfrun's.
var SearchAttributes = map[string]enumspb.IndexedValueType{
	"WfrunName":   enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	"WfrunParent": enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	"WfrunStatus": enumspb.INDEXED_VALUE_TYPE_KEYWORD,
}

// Options configures a dev server. The zero value is an in-memory server
// on a free loopback port with the namespace "default".
type Options struct {
	// IP the frontend listens on; "" means 127.0.0.1.
	IP string
	// Port of the frontend (the address workers and clients dial); 0 picks
	// a free one. The other services take free ports of their own.
	Port int
	// DB is the SQLite file that keeps the server's state across restarts;
	// it is created (with its schema) when missing. "" keeps everything in
	// memory, gone when the process ends.
	DB string
	// Namespaces are created at start, with SearchAttributes; nil means
	// just "default".
	Namespaces []string
	// Logger receives the server's log; nil logs at LogLevel to stderr.
	Logger log.Logger
	// LogLevel is the level of the default logger: debug, info, warn,
	// error or fatal ("" means fatal: a dev server's own errors while it
	// starts and stops are noise to its user, who sees its clients' errors).
	LogLevel string
	// TLSDir, if set, makes the frontend serve mutual TLS only, from the
	// PEM files of this folder: ca.pem (the authority whose certificates
	// clients must present), server.pem and server-key.pem (the frontend's
	// certificate, which must name "localhost" and be usable for client
	// authentication too: the server's own system worker presents it).
	// A plaintext client is refused.
	TLSDir string
}

// The files of Options.TLSDir.
const (
	TLSCAFile         = "ca.pem"
	TLSServerCertFile = "server.pem"
	TLSServerKeyFile  = "server-key.pem"
)

// Server is a running dev server.
type Server struct {
	srv      temporal.Server
	hostPort string
}

// Start starts a dev server and returns once its frontend accepts
// connections.
func Start(o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if len(o.Namespaces) == 0 {
		o.Namespaces = []string{"default"}
	}
	if o.Logger == nil {
		level := o.LogLevel
		if level == "" {
			level = "fatal"
		}
		o.Logger = log.NewZapLogger(log.BuildZapLogger(log.Config{Level: level}))
	}
	if o.Port == 0 {
		p, err := freePort(o.IP)
		if err != nil {
			return nil, err
		}
		o.Port = p
	}
	cfg, sqlCfg, err := serverConfig(o)
	if err != nil {
		return nil, err
	}
	if o.DB != "" {
		if _, err := os.Stat(o.DB); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(o.DB), 0o755); err != nil {
				return nil, fmt.Errorf("dev server: cannot create the folder of %s: %w", o.DB, err)
			}
			if err := sqlite.SetupSchema(sqlCfg); err != nil {
				return nil, fmt.Errorf("dev server: cannot set up the database %s: %w", o.DB, err)
			}
		}
	}
	var nss []*sqlite.NamespaceConfig
	for _, name := range o.Namespaces {
		ns, err := sqlite.NewNamespaceConfig(cfg.ClusterMetadata.CurrentClusterName, name, false, SearchAttributes)
		if err != nil {
			return nil, fmt.Errorf("dev server: namespace %s: %w", name, err)
		}
		nss = append(nss, ns)
	}
	if err := sqlite.CreateNamespaces(sqlCfg, nss...); err != nil {
		return nil, fmt.Errorf("dev server: cannot create the namespaces: %w", err)
	}
	authorizer, err := authorization.GetAuthorizerFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return nil, fmt.Errorf("dev server: %w", err)
	}
	claims, err := authorization.GetClaimMapperFromConfig(&cfg.Global.Authorization, o.Logger)
	if err != nil {
		return nil, fmt.Errorf("dev server: %w", err)
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithLogger(o.Logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claims }),
		temporal.WithDynamicConfigClient(dynamicconfig.StaticClient{
			// A namespace's search attributes are usable the moment it exists.
			dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): []dynamicconfig.ConstrainedValue{{Value: true}},
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("dev server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("dev server: %w", err)
	}
	s := &Server{srv: srv, hostPort: net.JoinHostPort(o.IP, strconv.Itoa(o.Port))}
	if err := s.waitReady(30 * time.Second); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return s, nil
}

// HostPort is the frontend's address, for workers and clients.
func (s *Server) HostPort() string { return s.hostPort }

// Stop stops the server.
func (s *Server) Stop() error { return s.srv.Stop() }

// waitReady waits until the frontend accepts a connection.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", s.hostPort, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("dev server: the frontend at %s did not come up within %s: %w", s.hostPort, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serverConfig is the configuration of one process running every service
// on loopback, with SQLite.
func serverConfig(o Options) (*config.Config, *config.SQL, error) {
	sqlCfg := &config.SQL{PluginName: sqliteplugin.PluginName, ConnectAttributes: map[string]string{}, DatabaseName: o.DB}
	if o.DB == "" {
		sqlCfg.ConnectAttributes["mode"] = "memory"
		sqlCfg.ConnectAttributes["cache"] = "shared"
		sqlCfg.DatabaseName = "wfrun-dev-" + strconv.Itoa(o.Port)
	} else {
		sqlCfg.ConnectAttributes["mode"] = "rwc"
	}
	ports := make([]int, 0, 8)
	for range 8 {
		p, err := freePort(o.IP)
		if err != nil {
			return nil, nil, err
		}
		ports = append(ports, p)
	}
	service := func(grpc, membership int, frontend bool) config.Service {
		rpc := config.RPC{GRPCPort: grpc, MembershipPort: membership, BindOnLocalHost: true}
		if frontend {
			rpc.BindOnLocalHost, rpc.BindOnIP = false, o.IP
		}
		return config.Service{RPC: rpc}
	}
	local := "127.0.0.1"
	var tlsCfg config.RootTLS
	if o.TLSDir != "" {
		ca, cert, key := filepath.Join(o.TLSDir, TLSCAFile), filepath.Join(o.TLSDir, TLSServerCertFile), filepath.Join(o.TLSDir, TLSServerKeyFile)
		for _, f := range []string{ca, cert, key} {
			if _, err := os.Stat(f); err != nil {
				return nil, nil, fmt.Errorf("dev server: --tls %s needs %s, %s and %s: %w", o.TLSDir, TLSCAFile, TLSServerCertFile, TLSServerKeyFile, err)
			}
		}
		tlsCfg.Frontend.Server = config.ServerTLS{CertFile: cert, KeyFile: key, ClientCAFiles: []string{ca}, RequireClientAuth: true}
		tlsCfg.SystemWorker = config.WorkerTLS{CertFile: cert, KeyFile: key,
			Client: config.ClientTLS{ServerName: "localhost", RootCAFiles: []string{ca}}}
	}
	cfg := &config.Config{
		Global: config.Global{
			Membership: config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: local},
			PProf:      config.PProf{Port: 0},
			TLS:        tlsCfg,
		},
		Persistence: config.Persistence{
			DefaultStore: sqliteplugin.PluginName, VisibilityStore: sqliteplugin.PluginName, NumHistoryShards: 1,
			DataStores: map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sqlCfg}},
		},
		ClusterMetadata: &cluster.Config{
			EnableGlobalNamespace: false, FailoverVersionIncrement: 10,
			MasterClusterName: "active", CurrentClusterName: "active",
			ClusterInformation: map[string]cluster.ClusterInformation{"active": {
				Enabled: true, InitialFailoverVersion: 1, RPCAddress: net.JoinHostPort(local, strconv.Itoa(o.Port)),
			}},
		},
		DCRedirectionPolicy: config.DCRedirectionPolicy{Policy: "noop"},
		Services: map[string]config.Service{
			"frontend": service(o.Port, ports[0], true),
			"history":  service(ports[1], ports[2], false),
			"matching": service(ports[3], ports[4], false),
			"worker":   service(ports[5], ports[6], false),
		},
		Archival: config.Archival{
			History:    config.HistoryArchival{State: "disabled"},
			Visibility: config.VisibilityArchival{State: "disabled"},
		},
		NamespaceDefaults: config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
			History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
			Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
		}},
		PublicClient: config.PublicClient{HostPort: net.JoinHostPort(o.IP, strconv.Itoa(o.Port))},
	}
	return cfg, sqlCfg, nil
}

// freePort returns a port nothing listens on at ip right now.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, fmt.Errorf("dev server: no free port on %s: %w", ip, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
