package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/wfrun/wfrun/internal/strictjson"
)

// Transport is how wfrun reaches one MCP server.
type Transport string

// The transports.
const (
	TransportStdio Transport = "stdio" // a local program spoken to over stdin/stdout
	TransportHTTP  Transport = "http"  // a remote server over streamable HTTP
	TransportSSE   Transport = "sse"   // a remote server over the older HTTP+SSE transport
)

// DefaultStartTimeout bounds starting one server and listing its tools when
// Config.StartTimeout is zero.
const DefaultStartTimeout = 30 * time.Second

// Config is an MCP config file: the "mcpServers" object that Claude Desktop,
// Claude Code and Cursor read. Keys other than the ones below are ignored, so
// a file written for one of those products can be used as it is.
type Config struct {
	// Servers maps a server's name to how to reach it. The name becomes the
	// SERVER part of the tool names the model sees.
	Servers map[string]Server `json:"mcpServers"`

	// StartTimeout bounds starting one server and listing its tools in New;
	// 0 means DefaultStartTimeout. It is not read from the file.
	StartTimeout time.Duration `json:"-"`
}

// Server is one entry of "mcpServers". After Parse, Type is always set.
type Server struct {
	// Type is the transport. In the file it may be left out: "command" means
	// stdio and "url" means http. "streamable-http" and "streamableHttp"
	// are accepted as spellings of http.
	Type Transport `json:"type,omitempty"`

	// For stdio: the program, its arguments, variables added to wfrun's own
	// environment, and the working directory ("" = wfrun's).
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`

	// For http and sse: the endpoint, and headers sent with every request
	// (for example Authorization).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Disabled servers are kept in the config but not started.
	Disabled bool `json:"disabled,omitempty"`
}

// ConfigError is a mistake in an MCP config file. Server and Field are empty
// when the mistake is not about one server or field.
type ConfigError struct {
	Server string
	Field  string
	Msg    string // a sentence saying what is wrong and what to write instead
	Err    error  // the JSON decoding error, if any
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("MCP config")
	if e.Server != "" || e.Field != "" {
		fmt.Fprintf(&b, ": server %q", e.Server)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Load reads and parses an MCP config file.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("MCP config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Parse parses and checks an MCP config. Every returned error is a
// *ConfigError (possibly wrapped).
func Parse(data []byte) (Config, error) {
	var top struct {
		Servers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, &ConfigError{Msg: fmt.Sprintf("not a JSON object: %v", err), Err: err}
	}
	if len(top.Servers) == 0 || bytes.Equal(top.Servers, []byte("null")) {
		return Config{}, &ConfigError{Field: "mcpServers",
			Msg: `missing; write {"mcpServers": {"NAME": {"command": "...", "args": [...]}}} or {"mcpServers": {"NAME": {"url": "https://..."}}}`}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(top.Servers, &raw); err != nil {
		return Config{}, &ConfigError{Field: "mcpServers", Msg: "must be an object mapping server names to servers", Err: err}
	}
	cfg := Config{Servers: make(map[string]Server, len(raw))}
	// Sorted, so that the first error reported does not depend on map order.
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s, err := parseServer(name, raw[name])
		if err != nil {
			return Config{}, err
		}
		cfg.Servers[name] = s
	}
	return cfg, nil
}

func parseServer(name string, data json.RawMessage) (Server, error) {
	if strings.TrimSpace(name) == "" {
		return Server{}, &ConfigError{Server: name, Msg: "a server name must not be empty"}
	}
	var s Server
	if err := json.Unmarshal(data, &s); err != nil {
		if p := strictjson.Explain(err, &s); p.Kind == strictjson.WrongField {
			return Server{}, &ConfigError{Server: name, Field: p.Field,
				Msg: fmt.Sprintf("has a JSON %s where %s is expected", p.Got, p.Want), Err: err}
		}
		return Server{}, &ConfigError{Server: name, Msg: fmt.Sprintf("must be an object: %v", err), Err: err}
	}
	if err := s.resolve(name); err != nil {
		return Server{}, err
	}
	return s, nil
}

// resolve fills in Type and checks that the fields fit it.
func (s *Server) resolve(name string) error {
	bad := func(field, msg string) error { return &ConfigError{Server: name, Field: field, Msg: msg} }
	switch strings.ToLower(string(s.Type)) {
	case "":
		switch {
		case s.Command != "" && s.URL != "":
			return bad("type", `is needed because both "command" and "url" are set; write "stdio", "http" or "sse", or remove one of them`)
		case s.Command != "":
			s.Type = TransportStdio
		case s.URL != "":
			s.Type = TransportHTTP
		default:
			return bad("command", `is missing; give "command" (a local program) or "url" (a remote server)`)
		}
	case "stdio":
		s.Type = TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		s.Type = TransportHTTP
	case "sse":
		s.Type = TransportSSE
	default:
		return bad("type", fmt.Sprintf(`is %q; use "stdio", "http" or "sse"`, s.Type))
	}
	if s.Type == TransportStdio {
		switch {
		case s.Command == "":
			return bad("command", `is required for a stdio server: the program to run`)
		case s.URL != "":
			return bad("url", `is set on a stdio server; remove it, or set "type" to "http" or "sse"`)
		case len(s.Headers) > 0:
			return bad("headers", `is set on a stdio server; headers are for "http" and "sse" servers`)
		}
		return nil
	}
	switch {
	case s.URL == "":
		return bad("url", fmt.Sprintf("is required for a %s server", s.Type))
	case s.Command != "":
		return bad("command", fmt.Sprintf(`is set on a %s server; remove it, or set "type" to "stdio"`, s.Type))
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("url", fmt.Sprintf("is %q; give an absolute http:// or https:// URL", s.URL))
	}
	return nil
}
