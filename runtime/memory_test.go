package runtime_test

import (
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
)

func TestMemory_TheWatchdogEndsARunThatGrowsTheHeapWithoutAPause(t *testing.T) {
	cases := []struct{ name, src string }{
		{"doubling a string", "let s = 'ab'; while (true) s += s"},
		{"doubling inside try", "let s = 'ab'; try { while (true) s = s + s } catch (e) {} return 1"},
		{"doubling by concat", "let s = 'ab'; while (true) s = s.concat(s)"}, // not checked before it allocates: the watchdog's
		{"pushing forever", "const a = []; while (true) a.push({ n: a.length, s: 'x' + a.length })"},
		{"after an agent", "await agent('x'); const m = new Map(); for (let i = 0; ; i++) m.set(i, [i, i, i])"},
		{"in toJSON", "return { toJSON() { const a = []; while (true) a.push([a.length]) } }"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timer := loadbound.Start(t)
			out, _ := runScript(t, c.src, func(cfg *Config) { cfg.MaxMemory = 64 << 20; cfg.Timeout = time.Minute })
			wantCode(t, out, wferr.ResourceLimit, "memory limit is 64 MiB")
			if took := timer.Stop(); took.Over(30 * time.Second) {
				t.Fatalf("took %v", took)
			}
		})
	}
}

func TestMemory_GarbageDoesNotCountAgainstTheBudget(t *testing.T) {
	// About a gigabyte of short-lived strings and objects, far above the
	// budget, while little is kept at any time.
	out, _ := runScript(t, `let n = 0
for (let i = 0; i < 300000; i++) {
  const o = { s: 'x'.repeat(1000) + i, list: [i, i + 1] }
  n += o.s.length + o.list.length
}
return n`, func(cfg *Config) { cfg.MaxMemory = 32 << 20 })
	if out.Err != nil {
		t.Fatalf("a run that makes only garbage was ended: %v", out.Err)
	}
}
