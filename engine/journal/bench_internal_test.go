package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/runtime"
)

// The cost of authenticating the journal, against what a line already
// costs: docs/benchmarks.md records the numbers.

func benchEntry() runtime.JournalEntry {
	return runtime.JournalEntry{Seq: 3, Order: 2, Key: `{"model":"gpt-4o-mini","prompt":"Note on gamma: what it is, in two sentences."}`,
		AgentID: "ag_3f2a9c0d1e4b5a67_3", Label: "gamma", Phase: "Notes", Status: agentapi.StatusCompleted,
		Text:  "Gamma takes its time. It settles last, and the summary waits for it.",
		Usage: agentapi.Usage{InputTokens: 40, OutputTokens: 6, CostUSD: 0.0000096}}
}

// BenchmarkLineMAC is what Record adds per line: the chained HMAC and its
// hex, and what reading adds: checking it.
func BenchmarkLineMAC(b *testing.B) {
	k := Key(bytes.Repeat([]byte{7}, keySize))
	body, _ := json.Marshal(line{V: Version, JournalEntry: benchEntry()})
	prev := k.mac([]byte("x"))
	b.Run("seal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			k.sealLine(prev, body)
		}
	})
	out, _ := k.sealLine(prev, body)
	text := bytes.TrimSuffix(out, []byte("\n"))
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, _, err := k.openLine(prev, text); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRecord is one whole journal line: encode, MAC, write, fsync.
func BenchmarkRecord(b *testing.B) {
	runs, state := b.TempDir(), b.TempDir()
	f, err := Create(runs, "wf_0123456789abcdef")
	if err != nil {
		b.Fatal(err)
	}
	k, err := NewKey(state, "wf_0123456789abcdef")
	if err != nil {
		b.Fatal(err)
	}
	j, err := f.OpenJournal(k, Head{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	e := benchEntry()
	for b.Loop() {
		e.Seq++
		if err := j.Record(e); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if fi, err := os.Stat(f.Path(JournalFile)); err == nil && b.N > 0 {
		b.ReportMetric(float64(fi.Size())/float64(b.N), "B/line")
	}
}
