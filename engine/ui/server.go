package ui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// DefaultAddr is where wfrun ui listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7777"

// DefaultPoll is how often a live page looks for new lines in a run's
// events.jsonl and for changes in the ledger.
const DefaultPoll = 250 * time.Millisecond

// shutdownGrace bounds how long Serve waits for open requests once its
// context is done.
const shutdownGrace = 5 * time.Second

//go:embed assets
var assets embed.FS

// Config configures a Server. Engine is required; the zero value of every
// other field is the sensible default.
type Config struct {
	// Engine is the engine whose ledger and runs folder the page shows and
	// whose verbs the buttons apply. It must keep runs (engine.Config.RunsDir).
	// Retries and continues started from the page run in it.
	Engine *engine.Engine
	// AuthToken, when set, is required of every request: as
	// "Authorization: Bearer TOKEN", or as the cookie a GET with
	// ?token=TOKEN sets. Without it the Server answers only to loopback
	// host names; CheckBind says when a token is needed.
	AuthToken string
	// TranscriptDirs are folders besides each run folder's transcripts/
	// where a child's transcript (AGENTID.jsonl) may be, as the openai
	// provider's --transcripts writes them.
	TranscriptDirs []string
	// Poll is how often live pages look for changes; 0 means DefaultPoll.
	Poll time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server serves the pages. It is safe for concurrent use.
type Server struct {
	cfg   Config
	pages map[string]*template.Template
	mux   *http.ServeMux

	sweepMu   sync.Mutex
	lastSweep time.Time
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Engine.Ledger() == nil {
		return nil, errors.New("ui: the engine keeps no runs; give it a runs folder (engine.Config.RunsDir, the CLI's --runs-dir)")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, pages: pages, mux: http.NewServeMux()}
	s.routes()
	return s, nil
}

// parsePages parses each page with the layout it shares.
func parsePages() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range []string{"runs", "run", "transcript", "message"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(assets, "assets/templates/layout.html", "assets/templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("ui: the %s page: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

func (s *Server) routes() {
	static, _ := fs.Sub(assets, "assets/static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.runsPage)
	s.mux.HandleFunc("GET /list", s.runsFragment)
	s.mux.HandleFunc("GET /events", s.ledgerStream)
	s.mux.HandleFunc("GET /runs/{id}", s.runPage)
	s.mux.HandleFunc("GET /runs/{id}/body", s.runFragment)
	s.mux.HandleFunc("GET /runs/{id}/events", s.eventStream)
	s.mux.HandleFunc("GET /runs/{id}/agents/{seq}/transcript", s.transcriptPage)
	s.mux.HandleFunc("POST /runs/{id}/{verb}", s.verb)
	s.mux.HandleFunc("/", s.notFound)
}

// Handler returns the Server as an http.Handler: access control, then the
// pages.
func (s *Server) Handler() http.Handler {
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, verbAnswer{Error: "this request came from a page of another origin; the verbs are applied only from wfrun ui's own pages"})
	}))
	return s.secure(s.guard(csrf.Handler(s.mux)))
}

// Serve serves Handler on l until ctx is done, then stops: the live pages'
// streams end (their contexts are cancelled) and open requests get a
// moment to finish.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cancel() // ends the streams, which never go idle on their own
	sctx, stop := context.WithTimeout(context.Background(), shutdownGrace)
	defer stop()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// Start listens on addr ("" is DefaultAddr) and serves the page in the
// background until ctx is done: listening is the address it listens on,
// and served gets the end of serving, nil when nothing failed. Its error
// is an address that refuses to listen; CheckBind is the caller's to
// apply first.
func (s *Server) Start(ctx context.Context, addr string) (listening net.Addr, served <-chan error, err error) {
	if addr == "" {
		addr = DefaultAddr
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--addr %s: cannot listen: %v; choose another port, or stop what listens there", addr, err)
	}
	ch := make(chan error, 1)
	go func() {
		err := s.Serve(ctx, l)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		ch <- err
	}()
	return l.Addr(), ch, nil
}

// sweep marks abandoned the runs whose lease has expired, at most once per
// poll interval: the ledger does so when it is opened, and a long-lived page
// must see a run whose process died since.
func (s *Server) sweep() {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	now := s.cfg.Now()
	if now.Sub(s.lastSweep) < s.cfg.Poll {
		return
	}
	s.lastSweep = now
	_, _ = s.cfg.Engine.SweepRuns()
}
