package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/wfrun/wfrun/internal/human"
)

// This file keeps a long child within its model's context window.
//
// The token count of the next request is estimated from the last one the
// endpoint measured (its prompt_tokens plus the reply's completion_tokens)
// plus an estimate of what was added since: a third of the bytes (code and
// JSON run denser than prose, so this errs on the large side) and a few
// tokens per message. Without a measurement the whole request is
// estimated that way, tool definitions included.
//
// Before each request, when the estimate exceeds the window less a reserve
// for the answer, the oldest tool results are replaced by a one-line stub,
// oldest first; the system prompt, the task and the latest turn are kept.
// When that is not enough, the latest turn's tool results are cut to share
// what room is left. A child whose history was elided says so in its note.
//
// If the endpoint still answers that the conversation is too long, every
// tool result becomes a stub, the oldest exchanges are dropped until the
// estimate fits, and one last turn without tools asks for the final
// answer. Only if that fails too does the child fail with context_length.

// contextWindow is one conversation's bookkeeping for its window.
type contextWindow struct {
	window int // tokens; 0 = unknown, nothing is elided

	measuredN      int // messages whose tokens the endpoint counted last
	measuredTokens int // that count, with the reply's tokens

	sizes map[string]int // tool call id → its result's full size in bytes

	elided  int  // tool results replaced by a stub
	cut     int  // tool results shortened
	trimmed bool // the one answer on a trimmed history was asked for
}

// measured records that the endpoint counted tokens for the first n
// messages (the last of them its own reply). tokens 0 means it did not
// say, and the next estimate counts bytes.
func (w *contextWindow) measured(n, tokens int) {
	if tokens <= 0 {
		w.measuredN, w.measuredTokens = 0, 0
		return
	}
	w.measuredN, w.measuredTokens = n, tokens
}

// note is the child's note about its window, or "".
func (w *contextWindow) note() string {
	var parts []string
	if w.elided > 0 {
		parts = append(parts, fmt.Sprintf("elided %d earlier tool %s", w.elided, human.Noun(w.elided, "result", "results")))
	}
	if w.cut > 0 {
		parts = append(parts, fmt.Sprintf("cut %d tool %s", w.cut, human.Noun(w.cut, "result", "results")))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + fmt.Sprintf(" to stay within the model's context window of %d tokens", w.window)
}

// budget is how many tokens the history may take: the window less a
// reserve for the answer (an eighth of it, at most 8192 tokens).
func (w *contextWindow) budget() int {
	return w.window - min(w.window/8, 8192)
}

// messageTokens estimates one message.
func messageTokens(m goopenai.ChatCompletionMessage) int {
	n := len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, tc := range m.ToolCalls {
		n += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return n/3 + 4
}

// estimate is the estimated token count of the next request.
func (c *conversation) estimate(withTools bool) int {
	w := &c.ctxw
	total, from := 0, 0
	if w.measuredN > 0 && w.measuredN <= len(c.msgs) {
		total, from = w.measuredTokens, w.measuredN
	} else {
		total = c.toolTokens(withTools)
	}
	for _, m := range c.msgs[from:] {
		total += messageTokens(m)
	}
	return total
}

// toolTokens estimates the tool definitions of a request.
func (c *conversation) toolTokens(withTools bool) int {
	r := c.request(withTools)
	if len(r.Tools) == 0 {
		return 0
	}
	data, _ := json.Marshal(r.Tools)
	return len(data) / 3
}

// fit elides and cuts tool results until the next request's estimate fits
// the budget, or nothing more can go.
func (c *conversation) fit(withTools bool) {
	w := &c.ctxw
	if w.window <= 0 || c.estimate(withTools) <= w.budget() {
		return
	}
	latest := c.latestTurn()
	for i := 2; i < latest && c.estimate(withTools) > w.budget(); i++ {
		if c.msgs[i].Role == goopenai.ChatMessageRoleTool && !isStub(c.msgs[i].Content) {
			c.replace(i, c.stub(c.msgs[i]))
			w.elided++
		}
	}
	c.cutLatest(latest, withTools)
}

// latestTurn is the index of the last assistant message: the tool results
// after it are the latest turn's. Without one it is len(msgs).
func (c *conversation) latestTurn() int {
	for i := len(c.msgs) - 1; i >= 2; i-- {
		if c.msgs[i].Role == goopenai.ChatMessageRoleAssistant {
			return i
		}
	}
	return len(c.msgs)
}

// minCut is the shortest cut result kept; below it a stub says more.
const minCut = 256

// cutLatest shortens the tool results after index latest, all to the same
// length, until the estimate fits; a result that would be shorter than
// minCut becomes a stub.
func (c *conversation) cutLatest(latest int, withTools bool) {
	w := &c.ctxw
	for range 8 { // each round recomputes the share; a few rounds settle it
		over := c.estimate(withTools) - w.budget()
		if over <= 0 {
			return
		}
		var idx []int
		total := 0
		for i := latest + 1; i < len(c.msgs); i++ {
			if c.msgs[i].Role == goopenai.ChatMessageRoleTool && !isStub(c.msgs[i].Content) {
				idx = append(idx, i)
				total += len(c.msgs[i].Content)
			}
		}
		if len(idx) == 0 {
			return
		}
		share := (total - over*3) / len(idx) // bytes each may keep
		for _, i := range idx {
			m := c.msgs[i]
			switch {
			case share < minCut:
				c.replace(i, c.stub(m))
				w.elided++
			case len(m.Content) > share:
				wasCut := isCut(m.Content)
				c.replace(i, c.cutTo(m, share))
				if !wasCut {
					w.cut++
				}
			}
		}
	}
}

// trim makes the history as small as it can be while keeping its shape:
// every tool result becomes a stub, then whole exchanges (an assistant
// message and what follows it) are dropped, oldest first, until the
// estimate fits or only the latest is left. The system prompt and the
// task stay.
func (c *conversation) trim() {
	w := &c.ctxw
	for i := 2; i < len(c.msgs); i++ {
		if c.msgs[i].Role == goopenai.ChatMessageRoleTool && !isStub(c.msgs[i].Content) {
			c.replace(i, c.stub(c.msgs[i]))
			w.elided++
		}
	}
	w.measuredN = 0 // the endpoint's count was of a history that failed
	for w.window > 0 && c.estimate(false) > w.budget() {
		first := -1
		for i := 2; i < len(c.msgs); i++ {
			if c.msgs[i].Role == goopenai.ChatMessageRoleAssistant {
				first = i
				break
			}
		}
		next := -1
		for i := first + 1; first >= 0 && i < len(c.msgs); i++ {
			if c.msgs[i].Role == goopenai.ChatMessageRoleAssistant {
				next = i
				break
			}
		}
		if next < 0 {
			return // only the latest exchange is left
		}
		c.msgs = append(c.msgs[:first], c.msgs[next:]...)
	}
}

// replace puts m at index i, keeping the endpoint's measurement in step
// when the message was part of it, and records the change.
func (c *conversation) replace(i int, m goopenai.ChatCompletionMessage) {
	w := &c.ctxw
	old := c.msgs[i]
	if i < w.measuredN {
		w.measuredTokens = max(0, w.measuredTokens-messageTokens(old)+messageTokens(m))
	}
	c.msgs[i] = m
	c.tr.elided(m, len(old.Content))
}

const (
	stubPrefix = "[elided: "
	cutMarker  = "\n[cut: "
)

func isStub(s string) bool { return strings.HasPrefix(s, stubPrefix) }
func isCut(s string) bool  { return strings.Contains(s, cutMarker) }

// fullSize is the size of a tool result before any cut.
func (c *conversation) fullSize(m goopenai.ChatCompletionMessage) int {
	if n, ok := c.ctxw.sizes[m.ToolCallID]; ok {
		return n
	}
	return len(m.Content)
}

// noteSize remembers a tool result's full size, for the stubs and cuts
// that may replace it later.
func (w *contextWindow) noteSize(id string, n int) {
	if w.sizes == nil {
		w.sizes = map[string]int{}
	}
	w.sizes[id] = n
}

// stub is m with its content replaced by one line saying what was there.
func (c *conversation) stub(m goopenai.ChatCompletionMessage) goopenai.ChatCompletionMessage {
	size := c.fullSize(m)
	m.Content = fmt.Sprintf("%sthe result of %s (%d bytes) was removed to keep the conversation within the model's context window; call the tool again if you still need it]",
		stubPrefix, m.Name, size)
	return m
}

// cutTo is m with its content cut to about n bytes (on a UTF-8 boundary)
// and a line saying so.
func (c *conversation) cutTo(m goopenai.ChatCompletionMessage, n int) goopenai.ChatCompletionMessage {
	size := c.fullSize(m)
	full := m.Content
	if i := strings.Index(full, cutMarker); i >= 0 {
		full = full[:i] // cut again from the text, not from the marker
	}
	keep := max(n-200, 0) // room for the marker
	if keep >= len(full) {
		return m
	}
	for keep > 0 && !utf8.RuneStart(full[keep]) {
		keep--
	}
	m.Content = fmt.Sprintf("%s%sshowing the first %d of %d bytes of this result, to fit the model's context window; ask for less (a range, a filter) to see more]",
		full[:keep], cutMarker, keep, size)
	return m
}
