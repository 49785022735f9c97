package tool_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

func TestPersonasOfAndAllDefinitions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "critic.md"), []byte("---\nname: critic\ndescription: |\n  Finds the faults.\n  And more lines.\n---\nBe harsh.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps := tool.PersonasOf(persona.Load([]string{dir}))
	found := false
	for _, p := range ps {
		found = found || (p.Name == "critic" && p.Description == "Finds the faults.")
	}
	if !found {
		t.Fatalf("personas %+v, want critic with the first line of its description", ps)
	}
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	defs := tool.AllDefinitions(eng, ps)
	names := map[tool.Name]bool{}
	for _, d := range defs {
		names[d.Name] = true
	}
	if !names["workflow"] || len(defs) != len(tool.New(eng, tool.Options{}).Definitions())+len(tool.SubagentDefinitions()) {
		t.Fatalf("definitions %v", names)
	}
}
