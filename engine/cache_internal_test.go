package engine

import "testing"

func TestScriptCache_IdenticalScriptsCompileOnce(t *testing.T) {
	var c scriptCache
	c.limit = 2
	a := c.get("s.js", "return 1")
	b := c.get("s.js", "return 1")
	if a != b || a.script == nil {
		t.Fatal("identical scripts were compiled twice")
	}
	c.get("s.js", "return 2")
	c.get("s.js", "return 3")
	if len(c.m) > 2 {
		t.Fatalf("cache holds %d entries, limit 2", len(c.m))
	}
}
