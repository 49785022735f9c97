package ui

import (
	"time"

	"github.com/wfrun/wfrun/engine"
)

// minBarPercent keeps an agent that took no visible time visible.
const minBarPercent = 0.4

// timeline is the agents of one attempt as bars, one row per concurrency
// slot. The events do not say which slot a child held, only that it held
// one from its agent.start to its agent.end; handing each start the
// lowest slot free at that moment, in the order the run emitted them,
// never needs more rows than slots were in use at once.
type timeline struct {
	Rows        [][]bar
	Replayed    []bar // answered from the journal: no slot, no time
	Ticks       []tick
	Concurrency int // the run's slots (run.start)
	Span        time.Duration
	Start       time.Time
	Empty       bool
}

type bar struct {
	Seq      int
	Label    string
	Phase    string
	Status   string
	Left     float64 // percent of the span
	Width    float64
	Duration time.Duration
	Open     bool // still running (or its end was never written)
}

type tick struct {
	Left   float64
	Label  string
	Anchor string // how the label sits on its tick: start, middle, end
}

// layout lays out the attempt's agents. end is where the axis ends: the
// run's end, now for a live run, or its last event for a run whose
// process died; status gives the outcome of a child whose agent.end was
// never written.
func layout(attempt []engine.Event, end time.Time, openStatus func(seq int) string) timeline {
	tl := timeline{Empty: true}
	if len(attempt) == 0 {
		return tl
	}
	tl.Start = attempt[0].Time
	// A span is a bar's place (its row and index) and its times; a running
	// one has no end yet.
	type span struct {
		row, index int
		start, end time.Time
	}
	var busy []bool
	running := map[string]span{}
	var spans []span
	for _, ev := range attempt {
		switch ev.Type {
		case engine.EventRunStart:
			tl.Concurrency = ev.Concurrency
		case engine.EventRunEnd:
			end = ev.Time
		case engine.EventAgentStart:
			if ev.Replayed {
				tl.Replayed = append(tl.Replayed, bar{Seq: ev.Seq, Label: ev.Label, Phase: ev.Phase, Status: "completed"})
				continue
			}
			row := 0
			for row < len(busy) && busy[row] {
				row++
			}
			if row == len(busy) {
				busy = append(busy, false)
				tl.Rows = append(tl.Rows, nil)
			}
			busy[row] = true
			tl.Rows[row] = append(tl.Rows[row], bar{Seq: ev.Seq, Label: ev.Label, Phase: ev.Phase, Status: "running", Open: true})
			running[ev.AgentID] = span{row: row, index: len(tl.Rows[row]) - 1, start: ev.Time}
		case engine.EventAgentEnd:
			l, ok := running[ev.AgentID]
			if !ok {
				continue // replayed, or its start is not in this attempt
			}
			delete(running, ev.AgentID)
			busy[l.row] = false
			b := &tl.Rows[l.row][l.index]
			b.Status, b.Open = string(ev.Outcome), false
			l.end = ev.Time
			spans = append(spans, l)
		}
	}
	for _, l := range running {
		b := &tl.Rows[l.row][l.index]
		if st := openStatus(b.Seq); st != "" {
			b.Status = st
		}
		l.end = end
		spans = append(spans, l)
	}
	if end.Before(tl.Start) {
		end = tl.Start
	}
	tl.Span = end.Sub(tl.Start)
	total := float64(tl.Span)
	if total <= 0 {
		total = 1
	}
	for _, sp := range spans {
		b := &tl.Rows[sp.row][sp.index]
		stop := sp.end
		if stop.After(end) {
			stop = end
		}
		b.Duration = stop.Sub(sp.start)
		b.Left = clampPercent(float64(sp.start.Sub(tl.Start)) / total * 100)
		b.Width = max(float64(b.Duration)/total*100, minBarPercent)
		if b.Left+b.Width > 100 {
			b.Width = max(100-b.Left, minBarPercent)
			b.Left = 100 - b.Width
		}
	}
	tl.Ticks = axis(tl.Span)
	tl.Empty = len(tl.Rows) == 0 && len(tl.Replayed) == 0
	return tl
}

func clampPercent(p float64) float64 { return min(max(p, 0), 100) }

// axisUnits are the units a tick's label may be rounded to, largest first.
var axisUnits = []time.Duration{time.Minute, 10 * time.Second, time.Second, 100 * time.Millisecond,
	10 * time.Millisecond, time.Millisecond, 100 * time.Microsecond, 10 * time.Microsecond, time.Microsecond}

// axis is the timeline's five ticks over span, each label rounded to the
// largest unit (a power of ten of a millisecond, or a second or minute)
// that still tells a tick from its neighbour, so that a short run reads
// "0s 50ms 100ms 150ms 200ms" rather than repeating its labels. A run of no
// length has one tick.
func axis(span time.Duration) []tick {
	if span <= 0 {
		return []tick{{Left: 0, Label: "0s", Anchor: "start"}}
	}
	step := span / 4
	unit := time.Duration(0)
	for _, u := range axisUnits {
		switch {
		case u > step:
			continue
		case step%u == 0 && u*100 >= step: // exact, with few digits
			unit = u
		case unit == 0 && u*10 <= step: // close enough, and still distinct
			unit = u
		default:
			continue
		}
		break
	}
	if unit == 0 {
		unit = time.Microsecond
	}
	ticks := make([]tick, 0, 5)
	for i := 0; i <= 4; i++ {
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 4:
			anchor = "end"
		}
		ticks = append(ticks, tick{Left: float64(i) * 25, Label: (span * time.Duration(i) / 4).Round(unit).String(), Anchor: anchor})
	}
	return ticks
}
