package schema

import (
	"encoding/json"
	"testing"
)

func TestCache_CompilesEachDistinctTextOnce(t *testing.T) {
	var c Cache
	a := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	b := json.RawMessage(`{"type":"object"}`)
	first, err := c.Get(a)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if s, _ := c.Get(a); s != first {
			t.Fatal("the same text compiled twice")
		}
		_, _ = c.Get(b)
	}
	if n := c.m.Len(); n != 2 {
		t.Fatalf("compiled %d schemas, want 2", n)
	}
	if _, err := c.Get(json.RawMessage(`{"type":"array"}`)); err == nil {
		t.Fatal("an array root was accepted")
	}
}

func TestStripFences(t *testing.T) {
	for in, want := range map[string]string{
		"{\"a\":1}":                   `{"a":1}`,
		"  ```json\n{\"a\":1}\n```  ": `{"a":1}`,
		"```\n[1,2]\n```":             `[1,2]`,
		"```{\"a\":1}```":             `{"a":1}`,
		"plain text":                  "plain text",
	} {
		if got := StripFences(in); got != want {
			t.Errorf("StripFences(%q) = %q, want %q", in, got, want)
		}
	}
}
