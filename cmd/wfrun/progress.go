package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/human"
)

// The live progress line: on a terminal, one line on stderr, redrawn in
// place on each event (at most every progressEvery) and on a ticker so the
// clock moves, and cleared before the result is printed.
//
//	▸ Audit · agents 3 running, 5 done, 1 failed · 12.3k tokens · 4.2s

const (
	progressEvery = 100 * time.Millisecond
	clearLine     = "\r\033[K"
	maxPhaseRunes = 40
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressState is what the line shows; it changes only through observe.
type progressState struct {
	name                  string // the workflow's name, until a phase starts
	phase                 string
	running, done, failed int
	tokens                int64
}

// observe folds one event into the state.
func (s *progressState) observe(ev engine.Event) {
	switch ev.Type {
	case engine.EventRunStart:
		if ev.Meta != nil {
			s.name = ev.Meta.Name
		}
	case engine.EventPhase:
		s.phase = ev.Title
	case engine.EventAgentStart:
		s.running++
	case engine.EventAgentEnd:
		s.running--
		if ev.Outcome == agentapi.StatusCompleted {
			s.done++
		} else {
			s.failed++
		}
		if ev.Usage != nil {
			s.tokens += ev.Usage.InputTokens + ev.Usage.OutputTokens
		}
	}
}

// line renders the state after elapsed.
func (s progressState) line(elapsed time.Duration) string {
	title := s.phase
	if title == "" {
		title = s.name
	}
	if title == "" {
		title = "starting"
	}
	if utf8.RuneCountInString(title) > maxPhaseRunes {
		title = string([]rune(title)[:maxPhaseRunes-1]) + "…"
	}
	title = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, title)
	return fmt.Sprintf("▸ %s · agents %d running, %d done, %d failed · %s tokens · %s",
		title, s.running, s.done, s.failed, human.Count(s.tokens), humanElapsed(elapsed))
}

// humanElapsed renders 4.2s, or 3m07s past a minute.
func humanElapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// progress draws the line on w. Its goroutine ends when stop returns.
type progress struct {
	w     io.Writer
	start time.Time

	mu       sync.Mutex
	state    progressState
	lastDraw time.Time
	stopped  bool

	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// progressLine starts the line on e's stderr when that is a terminal
// which --events - does not write to; otherwise it returns nil, whose stop
// does nothing.
func progressLine(e env, s *sinks) *progress {
	if !isTerminal(e.stderr) || (s != nil && s.toStderr) {
		return nil
	}
	return startProgress(e.stderr)
}

// startProgress starts the ticker goroutine, which stop ends.
func startProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	go p.tick()
	return p
}

func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case now := <-t.C:
			p.draw(now, true)
		}
	}
}

// record is an engine event sink.
func (p *progress) record(ev engine.Event) {
	p.mu.Lock()
	p.state.observe(ev)
	p.mu.Unlock()
	p.draw(time.Now(), false)
}

// draw redraws the line; unless forced, not within progressEvery of the last.
func (p *progress) draw(now time.Time, force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || (!force && now.Sub(p.lastDraw) < progressEvery) {
		return
	}
	p.lastDraw = now
	io.WriteString(p.w, clearLine+p.state.line(now.Sub(p.start)))
}

// above writes text above the line: it clears the line, writes text, and
// lets the next tick draw the line again.
func (p *progress) above(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, clearLine+text)
}

// stop ends the goroutine and clears the line. Events that arrive later
// are not drawn. Only the first call does anything, and on a nil progress
// (no line) none does: a command stops the line before it prints and again
// on its way out.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.stopOnce.Do(func() {
		close(p.quit)
		<-p.done
		p.mu.Lock()
		p.stopped = true
		io.WriteString(p.w, clearLine)
		p.mu.Unlock()
	})
}
