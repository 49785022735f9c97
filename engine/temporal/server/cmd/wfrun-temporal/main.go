// Command wfrun-temporal runs a Temporal dev server for wfrun on one
// machine: every Temporal service in this one process, state in a SQLite
// file (or in memory), wfrun's search attributes registered.
//
//	wfrun-temporal dev --port 7233 --db .wfrun/temporal.db
//	wfrun worker --temporal 127.0.0.1:7233 --task-queue wfrun
//	wfrun script.js --temporal 127.0.0.1:7233
//
// `wfrun temporal dev` runs this binary when it is on PATH or beside
// wfrun. See docs/scale-out.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/wfrun/wfrun/engine/temporal/server/devserver"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: wfrun-temporal dev [--port N] [--ip ADDR] [--db FILE] [--namespace NAME]... [--log-level LEVEL] [--tls DIR]

Runs a Temporal server for wfrun on this machine until interrupted.
  --port N          the frontend's port (default 7233)
  --ip ADDR         the address to listen on (default 127.0.0.1)
  --db FILE         keep the server's state in this SQLite file, created when missing
                    (default: in memory, gone when the server stops)
  --namespace NAME  a namespace to create (repeatable; default "default")
  --log-level LEVEL the server's log on stderr: debug, info, warn, error or fatal (default)
  --tls DIR         serve mutual TLS only, from DIR/ca.pem (the clients' authority),
                    DIR/server.pem and DIR/server-key.pem (naming localhost, usable
                    for client authentication too); plaintext clients are refused
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "dev" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("wfrun-temporal dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	port := fs.Int("port", 7233, "")
	ip := fs.String("ip", "127.0.0.1", "")
	db := fs.String("db", "", "")
	level := fs.String("log-level", "fatal", "")
	tlsDir := fs.String("tls", "", "")
	var namespaces multi
	fs.Var(&namespaces, "namespace", "")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wfrun-temporal dev: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	}
	srv, err := devserver.Start(devserver.Options{IP: *ip, Port: *port, DB: *db, Namespaces: namespaces, LogLevel: *level, TLSDir: *tlsDir})
	if err != nil {
		fmt.Fprintf(stderr, "wfrun-temporal dev: %v\n", err)
		return 1
	}
	where := "in memory"
	if *db != "" {
		where = *db
	}
	security := "plaintext"
	if *tlsDir != "" {
		security = "mutual TLS from " + *tlsDir
	}
	fmt.Fprintf(stdout, "Temporal dev server at %s (namespaces %s; state %s; %s)\n", srv.HostPort(), strings.Join(orDefault(namespaces), ", "), where, security)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	if err := srv.Stop(); err != nil {
		fmt.Fprintf(stderr, "wfrun-temporal dev: %v\n", err)
		return 1
	}
	return 0
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func orDefault(ns []string) []string {
	if len(ns) == 0 {
		return []string{"default"}
	}
	return ns
}
