package progress

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

// Clear returns the cursor to the start of the line and erases the line.
const Clear = "\r\033[K"

const (
	drawEvery     = 100 * time.Millisecond // the fastest redraw, and the ticker's period
	maxTitleRunes = 40
)

// state is what the line shows; it changes only through observe.
type state struct {
	name                  string // the workflow's name, until a phase starts
	phase                 string
	running, done, failed int
	tokens                int64
}

// observe folds one event into the state.
func (s *state) observe(ev engine.Event) {
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
func (s state) line(elapsed time.Duration) string {
	title := s.phase
	if title == "" {
		title = s.name
	}
	if title == "" {
		title = "starting"
	}
	if utf8.RuneCountInString(title) > maxTitleRunes {
		title = string([]rune(title)[:maxTitleRunes-1]) + "…"
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

// Line draws the progress line on a terminal. Record, Above and Stop may
// be called from any goroutine; on a nil *Line (no terminal) they do
// nothing.
type Line struct {
	w     io.Writer
	start time.Time

	mu       sync.Mutex
	state    state
	lastDraw time.Time
	stopped  bool

	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// Start draws the line on w until Stop; its ticker goroutine ends when
// Stop returns.
func Start(w io.Writer) *Line {
	p := &Line{w: w, start: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	go p.tick()
	return p
}

func (p *Line) tick() {
	defer close(p.done)
	t := time.NewTicker(drawEvery)
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

// Record is an engine event sink.
func (p *Line) Record(ev engine.Event) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.state.observe(ev)
	p.mu.Unlock()
	p.draw(time.Now(), false)
}

// draw redraws the line; unless forced, not within drawEvery of the last.
func (p *Line) draw(now time.Time, force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || (!force && now.Sub(p.lastDraw) < drawEvery) {
		return
	}
	p.lastDraw = now
	io.WriteString(p.w, Clear+p.state.line(now.Sub(p.start)))
}

// Above writes text above the line: it clears the line, writes text, and
// lets the next tick draw the line again.
func (p *Line) Above(text string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, Clear+text)
}

// Stop ends the goroutine and clears the line. Events that arrive later
// are not drawn. Only the first call does anything: a command stops the
// line before it prints and again on its way out.
func (p *Line) Stop() {
	if p == nil {
		return
	}
	p.stopOnce.Do(func() {
		close(p.quit)
		<-p.done
		p.mu.Lock()
		p.stopped = true
		io.WriteString(p.w, Clear)
		p.mu.Unlock()
	})
}

// IsTerminal reports whether w is a character device (a terminal): an
// *os.File, or anything with the same Stat method.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
