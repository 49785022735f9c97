package tools

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

func TestTheToolsFollowTheSandboxMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode workspace.Mode
		want []string
	}{
		{workspace.ReadOnly, []string{Read, Glob, Grep, Bash, TodoWrite}},
		{workspace.WorkspaceWrite, []string{Read, Write, Edit, Glob, Grep, Bash, TodoWrite}},
		{workspace.DangerFullAccess, []string{Read, Write, Edit, Glob, Grep, Bash, TodoWrite}},
	}
	for _, c := range cases {
		f := newFixture(t, c.mode, nil)
		tools, err := f.set.Tools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			if !strings.Contains(tool.Description, f.root) && tool.Name != TodoWrite {
				t.Errorf("%s: the description of %s does not name the workspace", c.mode, tool.Name)
			}
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("%s: tools %v, want %v", c.mode, names, c.want)
		}
	}
}

func TestReadOnlyHasNoWriteOrEdit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{"a.txt": "a\n"})
	for _, name := range []string{Write, Edit} {
		_, err := f.call(name, obj{"file_path": "a.txt", "content": "x", "old_string": "a", "new_string": "b"})
		if !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "Read, Glob, Grep, Bash, TodoWrite") {
			t.Errorf("%s in read-only: %v", name, err)
		}
	}
	if f.read("a.txt") != "a\n" {
		t.Fatal("read-only changed a file")
	}
}

func TestAllowNarrowsButNeverWidens(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, nil)
	set, err := New(f.set.Workspace(), Options{Allow: []string{Read, Grep, Write, "WebSearch"}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	tools, _ := set.Tools(context.Background())
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{Read, Grep}) {
		t.Fatalf("got %v, want Read and Grep only", names)
	}
	if _, err := set.Call(context.Background(), Bash, json.RawMessage(`{"command":"true"}`)); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("a tool outside Allow ran: %v", err)
	}
	if !IsBuiltin(Edit) || IsBuiltin("WebSearch") || IsBuiltin("read") {
		t.Fatal("IsBuiltin is wrong")
	}
}

// TestSchemasDescribeTheArguments checks every input schema compiles, is an
// object that refuses unknown fields, and names exactly the arguments the
// tool decodes (hidden aliases aside).
func TestSchemasDescribeTheArguments(t *testing.T) {
	t.Parallel()
	args := map[string]any{Read: &readArgs{}, Write: &writeArgs{}, Edit: &editArgs{}, Glob: &globArgs{},
		Grep: &grepArgs{}, Bash: &bashArgs{}, TodoWrite: &todoArgs{}}
	if !slices.Equal(slices.Sorted(maps.Keys(args)), slices.Sorted(maps.Keys(schemas))) {
		t.Fatal("a tool lacks a schema or an argument struct")
	}
	for name, v := range args {
		if _, err := schema.Compile(json.RawMessage(schemas[name])); err != nil {
			t.Errorf("%s: the schema does not compile: %v", name, err)
			continue
		}
		var s struct {
			Properties           map[string]json.RawMessage `json:"properties"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal([]byte(schemas[name]), &s); err != nil {
			t.Fatal(err)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: the schema allows unknown fields", name)
		}
		got := slices.Sorted(maps.Keys(s.Properties))
		want := strings.Split(fieldList(v), ", ")
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the schema has %v, the arguments are %v", name, got, want)
		}
	}
}

func TestBadArgumentsAreASentenceForTheModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"a.txt": "a\n"})
	cases := []struct {
		tool, args string
		words      []string
	}{
		{Read, `{"path":"a.txt"}`, []string{`unknown field "path"`, "file_path, offset, limit"}},
		{Read, `{"file_path":"a.txt","offset":"3"}`, []string{`"offset" must be a whole number, not a JSON string`}},
		{Read, `["a.txt"]`, []string{"JSON object", "file_path"}},
		{Read, `{"file_path":"a.txt"} {}`, []string{"single JSON object"}},
		{Edit, `{"file_path":"a.txt","old_string":"a","new_string":"b","replace_all":"yes"}`, []string{`"replace_all" must be true or false`}},
		{Grep, `{"pattern":"x","output_mode":"lines"}`, []string{"files_with_matches", "content", "count"}},
		{Bash, `{"command":"true","run_in_background":true}`, []string{"not supported"}},
		{Bash, `{"command":"true","dangerouslyDisableSandbox":true}`, []string{"cannot be turned off", "--sandbox"}},
		{TodoWrite, `{"todos":[{"content":"x","status":"done"}]}`, []string{"pending, in_progress or completed"}},
	}
	for _, c := range cases {
		_, err := f.set.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err == nil {
			t.Errorf("%s %s succeeded", c.tool, c.args)
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: %q does not say %q", c.tool, c.args, err, w)
			}
		}
	}
}

func TestAClosedSetRefusesCallsAndRemovesItsTempFolder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, nil)
	tmp := strings.TrimSpace(f.ok(Bash, obj{"command": "echo $TMPDIR; touch $TMPDIR/scratch"}))
	if tmp == "" || !strings.Contains(tmp, "wfrun-child-") {
		t.Fatalf("TMPDIR is %q, want the child's own temp folder", tmp)
	}
	if err := f.set.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.call(Read, obj{"file_path": "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Fatalf("the temp folder %s is still there", tmp)
	}
}
