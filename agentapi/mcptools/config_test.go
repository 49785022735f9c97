package mcptools

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfigAcceptsTheCommonFormats(t *testing.T) {
	cases := []struct {
		name string
		json string
		want map[string]Server
	}{
		{
			name: "a command is a stdio server",
			json: `{"mcpServers": {"calc": {"command": "calc-mcp", "args": ["--fast"], "env": {"K": "v"}}}}`,
			want: map[string]Server{"calc": {Type: TransportStdio, Command: "calc-mcp", Args: []string{"--fast"}, Env: map[string]string{"K": "v"}}},
		},
		{
			name: "a url is a streamable HTTP server",
			json: `{"mcpServers": {"web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`,
			want: map[string]Server{"web": {Type: TransportHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}},
		},
		{
			name: "an explicit type is honoured",
			json: `{"mcpServers": {"a": {"type": "stdio", "command": "x"}, "b": {"type": "sse", "url": "http://h/sse"}, "c": {"type": "http", "url": "http://h/mcp"}}}`,
			want: map[string]Server{
				"a": {Type: TransportStdio, Command: "x"},
				"b": {Type: TransportSSE, URL: "http://h/sse"},
				"c": {Type: TransportHTTP, URL: "http://h/mcp"},
			},
		},
		{
			name: "other spellings of streamable HTTP are accepted",
			json: `{"mcpServers": {"a": {"type": "streamable-http", "url": "http://h"}, "b": {"type": "streamableHttp", "url": "http://h"}}}`,
			want: map[string]Server{"a": {Type: TransportHTTP, URL: "http://h"}, "b": {Type: TransportHTTP, URL: "http://h"}},
		},
		{
			name: "keys other products use are ignored, disabled is kept",
			json: `{"globalShortcut": "", "mcpServers": {"a": {"command": "x", "autoApprove": [], "timeout": 60, "disabled": true}}}`,
			want: map[string]Server{"a": {Type: TransportStdio, Command: "x", Disabled: true}},
		},
		{
			name: "no servers is allowed",
			json: `{"mcpServers": {}}`,
			want: map[string]Server{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Servers, tc.want) {
				t.Errorf("got %+v\nwant %+v", cfg.Servers, tc.want)
			}
		})
	}
}

func TestParseConfigRejectsMistakesWithASentenceNamingServerAndField(t *testing.T) {
	cases := []struct {
		name, json    string
		server, field string
		says          string
	}{
		{"not JSON", `{"mcpServers": `, "", "", "not a JSON object"},
		{"no mcpServers", `{"servers": {}}`, "", "mcpServers", `write {"mcpServers"`},
		{"mcpServers not an object", `{"mcpServers": []}`, "", "mcpServers", "must be an object"},
		{"server not an object", `{"mcpServers": {"calc": "calc-mcp"}}`, "calc", "", "must be an object"},
		{"args not strings", `{"mcpServers": {"calc": {"command": "x", "args": [1]}}}`, "calc", "args", "has a JSON number where an array of strings is expected"},
		{"env not strings", `{"mcpServers": {"calc": {"command": "x", "env": {"A": true}}}}`, "calc", "env", "has a JSON bool where an object of strings is expected"},
		{"neither command nor url", `{"mcpServers": {"calc": {"args": []}}}`, "calc", "command", `give "command"`},
		{"both command and url", `{"mcpServers": {"calc": {"command": "x", "url": "http://h"}}}`, "calc", "type", "both"},
		{"unknown type", `{"mcpServers": {"calc": {"type": "ws", "url": "ws://h"}}}`, "calc", "type", `"ws"; use "stdio", "http" or "sse"`},
		{"stdio without command", `{"mcpServers": {"calc": {"type": "stdio"}}}`, "calc", "command", "required"},
		{"http without url", `{"mcpServers": {"web": {"type": "http"}}}`, "web", "url", "required"},
		{"url not http", `{"mcpServers": {"web": {"url": "ftp://h/mcp"}}}`, "web", "url", "absolute http:// or https:// URL"},
		{"url relative", `{"mcpServers": {"web": {"url": "/mcp"}}}`, "web", "url", "absolute"},
		{"headers on stdio", `{"mcpServers": {"calc": {"command": "x", "headers": {"A": "b"}}}}`, "calc", "headers", "for \"http\" and \"sse\""},
		{"args not strings", `{"mcpServers": {"calc": {"command": "x", "args": [1]}}}`, "calc", "args", "an array of strings"},
		{"env not strings", `{"mcpServers": {"calc": {"command": "x", "env": {"A": 1}}}}`, "calc", "env", "an object of strings"},
		{"command not a string", `{"mcpServers": {"calc": {"command": ["x"]}}}`, "calc", "command", "a string"},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, "", "", "name must not be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.json))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			if ce.Server != tc.server || ce.Field != tc.field {
				t.Errorf("got server %q field %q, want %q %q", ce.Server, ce.Field, tc.server, tc.field)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%q does not say %q", err, tc.says)
			}
			if tc.server != "" && !strings.Contains(err.Error(), `server "`+tc.server+`"`) {
				t.Errorf("%q does not name the server", err)
			}
		})
	}
}

func TestLoadConfigNamesTheFileInItsErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"calc": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"calc"`) {
		t.Errorf("got %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file is not an error")
	}
}
