package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/internal/human"
)

// Output is the structured content of a workflow result: the
// WorkflowResult, whose value is left out (null) when it is longer than
// the text may show, with ValueCut saying where the whole value is.
type Output struct {
	engine.WorkflowResult
	ValueCut *Cut `json:"valueCut,omitempty"`
	// Logs are the run's last log lines, as the text ends with them.
	Logs []string `json:"logs,omitempty"`
}

// Cut says that a value was too long to show whole. It carries the part
// the text shows and the text's notice too, for clients that show a model
// the structured content instead of the text.
type Cut struct {
	Chars    int    `json:"chars"`    // the whole value's length, in characters of its indented JSON
	Shown    int    `json:"shown"`    // how many of them the text shows
	Resource string `json:"resource"` // where the whole value is: wfrun://runs/<runId>/result
	Notice   string `json:"notice"`   // the text's sentence saying so, and how to read the rest
	Prefix   string `json:"prefix"`   // the first Shown characters of the indented JSON
}

// ErrorOutput is the structured content of a call refused before any run
// started: bad input, an unknown run.
type ErrorOutput struct {
	ErrorCode engine.ErrorCode `json:"errorCode"`
	Error     string           `json:"error"`
}

// inputError renders a refused call.
func inputError(err error) Result {
	e := asError(err)
	return Result{Text: string(e.Code) + ": " + e.Message, IsError: true,
		Structured: ErrorOutput{ErrorCode: e.Code, Error: e.Message}}
}

func asError(err error) *engine.Error {
	var e *engine.Error
	if errors.As(err, &e) {
		return e
	}
	return &engine.Error{Code: engine.CodeInternal, Message: err.Error()}
}

// rendering says how to render one run's result.
type rendering struct {
	script   string // the source, for the excerpt at the error's line; "" for none
	name     string // the workflow's meta name; "" when the run never started
	precheck bool   // the run was refused by Start: nothing ran
	// resumable says the engine keeps runs, so a run that did not complete
	// can be resumed with resumeFromRunId.
	resumable bool
	// file is the script's file (scriptPath, or a saved workflow's), ""
	// for an inline script.
	file string
	// logs are the run's last log lines, which end the result.
	logs []string
}

// renderResult renders a settled run (or a refused one) as a tool result.
func (s *Set) renderResult(res engine.WorkflowResult, how rendering) Result {
	if res.StopReason == engine.StopCompleted {
		r := s.renderCompleted(res, how.name)
		// The script's file goes under the header line, so that the value
		// still ends the text when the run logged nothing.
		if line := s.scriptLine(res.RunID, how); line != "" {
			header, value, _ := strings.Cut(r.Text, "\n")
			r.Text = header + line + value
		}
		r.Text += logBlock(how.logs)
		if out, ok := r.Structured.(Output); ok {
			out.Logs = how.logs
			r.Structured = out
		}
		return r
	}
	how.resumable = !how.precheck && s.eng.RunsDir() != ""
	text := failureText(res, how) + s.scriptLine(res.RunID, how) + logBlock(how.logs)
	return Result{Text: text, IsError: true, Structured: Output{WorkflowResult: res, Logs: how.logs}, RunID: res.RunID}
}

// scriptLine names the file the run's script is in, so that a model that
// iterates edits it and calls again: the scriptPath or saved workflow it
// came from, or, for an inline script of a host that keeps runs, the copy
// in the run's folder.
func (s *Set) scriptLine(runID string, how rendering) string {
	switch {
	case how.file != "":
		return fmt.Sprintf("\nScript: %s (edit it and call workflow again with scriptPath to run the new version)\n", how.file)
	case runID != "" && s.eng.RunsDir() != "" && how.script != "":
		return fmt.Sprintf("\nScript saved as %s (to iterate, write your script to a file of the workspace, edit it there and call workflow with scriptPath)\n",
			filepath.Join(s.eng.RunsDir(), runID, journal.ScriptFile))
	}
	return ""
}

// logBlock renders a run's last log lines, or "" when it logged none.
func logBlock(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLast log lines (at most %d lines, %d bytes):\n", engine.MaxLogLines, engine.MaxLogBytes)
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// renderCompleted is the header line and the (capped) value.
func (s *Set) renderCompleted(res engine.WorkflowResult, name string) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "workflow %q completed (%s, %d tokens, %s s)\n", name, human.Plural(res.AgentsSpawned, "agent", "agents"),
		res.Usage.InputTokens+res.Usage.OutputTokens, seconds(res.DurationMs))
	out := Output{WorkflowResult: res}
	text, cut := s.capValue(res.Value, res.RunID)
	b.WriteString(text)
	if cut != nil {
		out.Value = nil
		out.ValueCut = cut
	}
	return Result{Text: b.String(), Structured: out, RunID: res.RunID}
}

// capValue renders value as indented JSON, cut to the set's limit with a
// notice naming the run's result resource.
func (s *Set) capValue(value json.RawMessage, runID string) (string, *Cut) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, value, "", "  "); err != nil {
		buf.Reset()
		buf.Write(value)
	}
	text := buf.String()
	n := utf8.RuneCountInString(text)
	limit := s.opts.MaxResultChars
	if n <= limit {
		return text, nil
	}
	cut := &Cut{Chars: n, Shown: limit, Resource: ResultURI(runID), Prefix: string([]rune(text)[:limit])}
	cut.Notice = fmt.Sprintf("[value cut: it is %d characters and this shows the first %d. The whole value is the resource %s (read it with MCP resources/read).]",
		n, limit, cut.Resource)
	return cut.Prefix + "\n… " + cut.Notice, cut
}

// failureText says what stopped the run, where, and what had been done.
func failureText(res engine.WorkflowResult, how rendering) string {
	var b strings.Builder
	subject := "workflow"
	if how.name != "" {
		subject = fmt.Sprintf("workflow %q", how.name)
	}
	switch {
	case how.precheck:
		fmt.Fprintf(&b, "%s was refused before it ran: %s", subject, res.ErrorCode)
	case res.StopReason == engine.StopCancelled:
		fmt.Fprintf(&b, "%s was cancelled: %s", subject, res.ErrorCode)
	default:
		fmt.Fprintf(&b, "%s failed: %s", subject, res.ErrorCode)
	}
	if res.ErrorLine > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", res.ErrorLine, res.ErrorColumn)
	}
	b.WriteString(": " + res.Error + "\n")
	if res.ErrorLine > 0 {
		b.WriteString(excerpt(how.script, res.ErrorLine, res.ErrorColumn))
	}
	if how.precheck {
		b.WriteString("Nothing ran and no agent was started. Fix the script and call workflow again.\n")
		return b.String()
	}
	a := res.Agents
	fmt.Fprintf(&b, "%d of %s had completed (%d failed, %d timed out, %d cancelled); %d tokens; %s s. ",
		a.Completed, human.Plural(res.AgentsSpawned, "agent", "agents"), a.Failed, a.TimedOut, a.Cancelled,
		res.Usage.InputTokens+res.Usage.OutputTokens, seconds(res.DurationMs))
	b.WriteString("A run that does not complete returns no value")
	if next := nextStep(res.ErrorCode); next != "" {
		b.WriteString("; " + next)
	}
	b.WriteString(".\n")
	if how.resumable && a.Completed+a.Replayed > 0 {
		fmt.Fprintf(&b, "Its finished agents are journaled: call workflow again with resumeFromRunId %q and the script (fixed, if it was wrong), and the unchanged calls that had finished cost nothing.\n", res.RunID)
	}
	return b.String()
}

// nextStep is what to do after a run ended with code, beyond what its
// sentence says.
func nextStep(code engine.ErrorCode) string {
	switch code {
	case engine.CodeCancelled:
		return ""
	case engine.CodeTimeout:
		return "do less per run, or pass a larger timeoutMs"
	case engine.CodeAgentStart, engine.CodeAgentResult:
		return "the sub-agent provider is failing, not the script: tell the user"
	case engine.CodeInternal:
		return "this is a bug in wfrun: tell the user, with the script"
	case engine.CodeBudgetExhausted:
		return "check budget.remaining() before each round, or pass a larger budgetTokens"
	case engine.CodeAgentCap:
		return "batch items into fewer agent() calls, or pass a larger maxTotalAgents"
	}
	return "fix the script and call workflow again"
}

// excerpt shows the script's line with a caret under the column, or ""
// when the line is not in the script.
func excerpt(script string, line, col int) string {
	lines := strings.Split(script, "\n")
	if script == "" || line < 1 || line > len(lines) {
		return ""
	}
	src := strings.TrimRight(lines[line-1], "\r")
	src = strings.TrimPrefix(src, "\ufeff")
	const maxLine = 200
	runes := []rune(src)
	if len(runes) > maxLine {
		runes = append(runes[:maxLine:maxLine], '…')
	}
	num := fmt.Sprint(line)
	var b strings.Builder
	fmt.Fprintf(&b, "  %s | %s\n", num, string(runes))
	if col >= 1 && col-1 <= len(runes) {
		pad := make([]rune, 0, col-1)
		for _, r := range runes[:col-1] {
			if r == '\t' {
				pad = append(pad, '\t')
			} else {
				pad = append(pad, ' ')
			}
		}
		fmt.Fprintf(&b, "  %s | %s^\n", strings.Repeat(" ", len(num)), string(pad))
	}
	return b.String()
}

// seconds renders milliseconds as seconds with one decimal.
func seconds(ms int64) string { return fmt.Sprintf("%.1f", float64(ms)/1000) }
