package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzEventLogAndTimeline feeds any bytes to the page as a run's
// events.jsonl: reading never fails on them, and every bar it lays out
// lies inside the axis.
func FuzzEventLogAndTimeline(f *testing.F) {
	f.Add([]byte(`{"type":"run.start","runId":"wf_1","time":"2026-01-01T00:00:00Z","concurrency":2}
{"type":"agent.start","agentId":"a","seq":1,"time":"2026-01-01T00:00:01Z"}
{"type":"agent.end","agentId":"a","seq":1,"outcome":"completed","time":"2026-01-01T00:00:00Z"}
`))
	f.Add([]byte(`{"type":"agent.end","agentId":"x","seq":-4}` + "\n" + `{"type":"agent.start","agentId":"x","time":"9999-01-01T00:00:00Z"}` + "\n{\"type\":\"run.st"))
	f.Add([]byte("\n\n\xff\xfe{}\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		log, err := readEventLog(path)
		if err != nil {
			t.Fatal(err)
		}
		if log.End > int64(len(data)) {
			t.Fatalf("End %d past the file's %d bytes", log.End, len(data))
		}
		tl := layout(lastAttempt(log.Events), time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC), func(int) string { return "" })
		for _, row := range tl.Rows {
			for _, b := range row {
				if b.Left < 0 || b.Width <= 0 || b.Left+b.Width > 100.0001 {
					t.Fatalf("a bar off the axis: %+v", b)
				}
			}
		}
	})
}
