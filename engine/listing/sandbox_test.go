package listing_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/listing"
)

func TestWriteSandboxListsTheLayersThenTheVerdict(t *testing.T) {
	var b bytes.Buffer
	refused, err := listing.WriteSandbox(&b, false, false)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) < 3 || lines[0] != "The sandbox layers of this machine:" {
		t.Fatalf("report:\n%s", b.String())
	}
	last := lines[len(lines)-1]
	if refused != strings.Contains(last, "would be REFUSED") || !strings.HasPrefix(last, "Sandboxed commands (read-only, workspace-write) ") {
		t.Fatalf("refused %v, verdict %q", refused, last)
	}
}
