package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestTemporalGC_ABadInvocationIsRefusedWithASentence(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"temporal", "gc"}, "temporal gc needs --temporal"},
		{[]string{"temporal", "gc", "--temporal", "127.0.0.1:1", "extra"}, "takes no arguments"},
		{[]string{"temporal", "gc", "--temporal", "127.0.0.1:1", "--min-age", "-1h"}, "is negative"},
		{[]string{"temporal", "gc", "--temporal", "127.0.0.1:1", "--payloads", "gs://bucket"}, `the scheme "gs"`},
		{[]string{"temporal", "gc", "--temporal", "127.0.0.1:1", "--nope"}, "unknown flag --nope"},
		{[]string{"temporal", "nope"}, "wfrun temporal gc"},
	} {
		out := wfrun(t, c.args...)
		out.wantCode(t, exitUsage)
		if !strings.Contains(out.stderr, c.want) {
			t.Errorf("%q: %s, want %q", c.args, out.stderr, c.want)
		}
	}
	// A run, a worker and an MCP server refuse a store they cannot open.
	out := wfrun(t, "testdata/hello.js", "--temporal", "127.0.0.1:1", "--payloads", "s3://?region=x")
	if out.code == exitCompleted || !strings.Contains(out.stdout+out.stderr, "--payloads: the payload store s3://?region=x names no bucket") {
		t.Fatalf("a run with a bad store: %d %s %s", out.code, out.stdout, out.stderr)
	}
}

func TestTemporalGCE2E_DeletesOnlyOldPayloadsThatNoHistoryRefersTo(t *testing.T) {
	addr := startTemporalDev(t, "Temporal dev server at")
	dir := t.TempDir()
	store := wftemporal.DirStore{Dir: dir}
	ctx := context.Background()
	oldKey, err := store.Put(ctx, []byte("a payload of a run whose history is gone"))
	if err != nil {
		t.Fatal(err)
	}
	newKey, err := store.Put(ctx, []byte("a payload of a run being started"))
	if err != nil {
		t.Fatal(err)
	}
	file := func(key string) string { return filepath.Join(dir, key[:2], key) }
	long := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(file(oldKey), long, long); err != nil {
		t.Fatal(err)
	}

	out := wfrun(t, "temporal", "gc", "--temporal", addr, "--payloads", "file://"+dir, "--dry-run")
	out.wantCode(t, exitCompleted)
	if !strings.Contains(out.stdout, "would delete "+oldKey+"\n") || strings.Contains(out.stdout, newKey) ||
		!strings.Contains(out.stdout, "would delete 1 of 2 payloads") || !strings.Contains(out.stdout, "1 younger than 24h0m0s") {
		t.Fatalf("dry run:\n%s%s", out.stdout, out.stderr)
	}
	for _, k := range []string{oldKey, newKey} {
		if _, err := os.Stat(file(k)); err != nil {
			t.Fatalf("a dry run deleted %s", k)
		}
	}

	out = wfrun(t, "temporal", "gc", "--temporal", addr, "--payloads", dir, "--json")
	out.wantCode(t, exitCompleted)
	var res wftemporal.GCResult
	if err := json.Unmarshal([]byte(out.stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.stdout)
	}
	if len(res.Deleted) != 1 || res.Deleted[0] != oldKey || res.Recent != 1 || res.Payloads != 2 || res.DryRun {
		t.Fatalf("gc: %+v", res)
	}
	if _, err := os.Stat(file(oldKey)); !os.IsNotExist(err) {
		t.Fatalf("the old payload is still there: %v", err)
	}
	if _, err := os.Stat(file(newKey)); err != nil {
		t.Fatalf("the recent payload was deleted: %v", err)
	}

	// --min-age 0 collects whatever no history refers to.
	out = wfrun(t, "temporal", "gc", "--temporal", addr, "--payloads", dir, "--min-age", "0")
	out.wantCode(t, exitCompleted)
	if !strings.Contains(out.stdout, "deleted 1 of 1 payloads") {
		t.Fatalf("--min-age 0:\n%s%s", out.stdout, out.stderr)
	}
}
