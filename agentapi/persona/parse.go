package persona

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/wfrun/wfrun/agentapi/modelmap"
)

// MaxFileSize is the largest persona file read. A system prompt is a few
// kilobytes; anything near this size is not an agent definition.
const MaxFileSize = 1 << 20

// LoadError is a persona file that could not be read or parsed.
type LoadError struct {
	File    string `json:"file"`           // the file (or folder) as found
	Line    int    `json:"line,omitempty"` // 1-based line in the file, the opening --- being line 1; 0 when none applies
	Message string `json:"message"`        // a sentence saying what is wrong and what to write instead
	Err     error  `json:"-"`              // the cause, if any
}

// Error renders "FILE:LINE: MESSAGE".
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Message)
}

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// The front-matter fields wfrun reads. Every other field is ignored.
const (
	fieldName            = "name"
	fieldDescription     = "description"
	fieldTools           = "tools"
	fieldDisallowedTools = "disallowedTools"
	fieldModel           = "model"
	fieldEffort          = "effort"
	fieldMaxTurns        = "maxTurns"
	fieldPermissionMode  = "permissionMode"
)

// Parse reads one persona file. file names it in errors and becomes the
// persona's Source. Every error is a *LoadError with the line in the file.
func Parse(file string, data []byte) (Persona, error) {
	at := &errorAt{file: file}
	if len(data) > MaxFileSize {
		return Persona{}, at.line(0, nil, "is %d bytes, more than the %d a persona file may have; an agent definition is front matter and a system prompt", len(data), MaxFileSize)
	}
	front, body, closeLine, ok := splitFrontMatter(data)
	if !ok {
		if closeLine == 0 {
			return Persona{}, at.line(1, nil, "does not start with front matter: an agent definition starts with a line ---, then YAML fields (name, description, tools, …), then a line ---, then the system prompt")
		}
		return Persona{}, at.line(1, nil, "its front matter is never closed: add a line --- after the YAML fields")
	}
	at.maxLine = closeLine
	pairs, strict, warning, err := readFrontMatter(front, at)
	if err != nil {
		return Persona{}, err
	}
	p := Persona{Source: file, Prompt: body}
	if warning != nil {
		p.Warnings = []*LoadError{warning}
	}
	seen := map[string]int{}
	for _, f := range pairs {
		if !isField(f.key) {
			continue // color, skills, hooks, …: Claude Code's, not ours
		}
		if first, dup := seen[f.key]; dup {
			return Persona{}, at.line(f.line, nil, "%s is given twice (first on line %d): keep one", f.key, first)
		}
		seen[f.key] = f.line
		if err := p.set(f, strict, at); err != nil {
			return Persona{}, err
		}
	}
	if p.Name == "" {
		return Persona{}, at.line(1, nil, "the front matter has no name: add name: NAME (the agentType scripts use)")
	}
	return p, nil
}

// errorAt makes the errors of one persona file.
type errorAt struct {
	file    string
	maxLine int // the closing fence's line, once known
}

// line is a *LoadError at line of the file.
func (a *errorAt) line(line int, err error, format string, args ...any) *LoadError {
	// YAML also breaks lines at a lone \r, which the file's lines (at
	// \n) do not: keep the line within the front matter.
	if a.maxLine > 0 {
		line = min(line, a.maxLine)
	}
	return &LoadError{File: a.file, Line: line, Message: fmt.Sprintf(format, args...), Err: err}
}

// yamlFailure is the YAML error that made the front matter be read
// leniently, line by line.
type yamlFailure struct {
	err  error
	line int
	msg  string
}

// readFrontMatter reads the front matter's top-level fields: as YAML, or,
// when it is not YAML, line by line with a warning that says so.
func readFrontMatter(front []byte, at *errorAt) (pairs []field, strict yamlFailure, warning, err *LoadError) {
	var doc yaml.Node
	if yerr := yaml.Unmarshal(front, &doc); yerr != nil {
		line, msg := yamlErrorLine(yerr)
		strict = yamlFailure{err: yerr, line: line, msg: msg}
		lenient, hidden, ok := lenientFields(front)
		if !ok {
			return nil, strict, nil, at.line(line, yerr, "the front matter is not valid YAML: %s", msg)
		}
		if hidden != nil {
			return nil, strict, nil, at.line(hidden.line, yerr, "the front matter is not valid YAML (%s), and read line by line, the indented %s: on this line would be part of %s: start %s: at the beginning of its line if it is a field of its own", msg, hidden.key, hidden.in, hidden.key)
		}
		warning = &LoadError{File: at.file, Line: min(line, at.maxLine), Err: yerr,
			Message: fmt.Sprintf("the front matter is not valid YAML (%s), so it was read line by line: each top-level key: value line starts a field that runs to the next one; quote the value (description: \"…\") or write it as an indented block (description: |) to make it YAML", msg)}
		return lenient, strict, warning, nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil, strict, nil, at.line(1, nil, "the front matter is empty: it needs at least name: NAME")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, strict, nil, at.line(root.Line+1, nil, "the front matter must be YAML fields (key: value), not %s", kindName(root))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		pairs = append(pairs, field{key: root.Content[i].Value, line: root.Content[i].Line + 1, value: root.Content[i+1]})
	}
	return pairs, strict, nil, nil
}

// set reads one of wfrun's fields into p. strict is why the front matter
// was read line by line, if it was.
func (p *Persona) set(f field, strict yamlFailure, at *errorAt) error {
	if f.text && !freeText(f.key) {
		// Even on its own this field is not YAML, and a list of
		// tools or a number cannot be taken as written.
		if f.err != nil {
			l, msg := yamlErrorLine(f.err)
			return at.line(min(f.line+l-2, f.last), f.err, "the front matter is not valid YAML: %s", msg)
		}
		return at.line(strict.line, strict.err, "the front matter is not valid YAML: %s", strict.msg)
	}
	v, vline := f.value, f.value.Line+1
	switch f.key {
	case fieldTools, fieldDisallowedTools:
		list, err := toolList(v)
		if err != nil {
			return at.line(vline, nil, "%s %v", f.key, err)
		}
		if f.key == fieldTools {
			p.Tools = list
		} else {
			p.DisallowedTools = list
		}
	case fieldMaxTurns:
		n, err := positiveInt(v)
		if err != nil {
			return at.line(vline, nil, "maxTurns %v", err)
		}
		p.MaxTurns = n
	default:
		s, err := scalarString(v)
		if err != nil {
			return at.line(vline, nil, "%s %v", f.key, err)
		}
		if lerr := p.setScalar(f.key, s, vline, at); lerr != nil {
			return lerr
		}
	}
	return nil
}

// setScalar reads a field whose value is one string into p.
func (p *Persona) setScalar(key, s string, vline int, at *errorAt) *LoadError {
	switch key {
	case fieldName:
		p.Name = strings.TrimSpace(s)
		if p.Name == "" || strings.IndexFunc(p.Name, unicode.IsControl) >= 0 {
			return at.line(vline, nil, "name must be a non-empty name on one line, such as code-reviewer")
		}
	case fieldDescription:
		p.Description = strings.TrimSpace(s)
	case fieldModel:
		p.Model = strings.TrimSpace(s)
	case fieldEffort:
		e, err := modelmap.ParseEffort(s)
		if err != nil {
			return at.line(vline, err, "%v", err)
		}
		p.Effort = e
	case fieldPermissionMode:
		m, err := parsePermissionMode(strings.TrimSpace(s))
		if err != nil {
			return at.line(vline, err, "%v", err)
		}
		p.PermissionMode = m
		p.ReadOnly = m.ReadOnly()
	}
	return nil
}

// field is one top-level key of the front matter and its value, with the
// key's line in the user's file. text says that the value could not be
// read as YAML even on its own, and holds the text as written; err is then
// the YAML error of the field's own lines, if any.
type field struct {
	key   string
	line  int
	last  int // the line of the field's last line
	value *yaml.Node
	text  bool
	err   error
}

// freeText reports whether a field's value may be taken as written when it
// is not YAML: the fields whose value is a sentence or a single word.
func freeText(key string) bool {
	switch key {
	case fieldName, fieldDescription, fieldModel, fieldEffort, fieldPermissionMode:
		return true
	}
	return false
}

func isField(key string) bool {
	switch key {
	case fieldName, fieldDescription, fieldTools, fieldDisallowedTools, fieldModel, fieldEffort, fieldMaxTurns, fieldPermissionMode:
		return true
	}
	return false
}

// splitFrontMatter cuts data into the YAML between the first two ---
// lines and the body after them. closeLine is the 1-based line of the
// closing fence; ok is false when there is no opening fence (closeLine 0)
// or no closing one (closeLine -1). The YAML keeps its line numbers
// relative to the line after the opening fence.
func splitFrontMatter(data []byte) (front []byte, body string, closeLine int, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) == 0 || !isFence(lines[0]) {
		return nil, "", 0, false
	}
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			front = bytes.Join(lines[1:i], nil)
			body = strings.TrimSpace(string(bytes.Join(lines[i+1:], nil)))
			body = strings.ReplaceAll(body, "\r\n", "\n")
			return front, body, i + 1, true
		}
	}
	return nil, "", -1, false
}

func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---"
}

// yamlLine matches the position in a go-yaml syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErrorLine returns the line in the user's file of a YAML error and its
// message. The YAML starts on the file's line 2. go-yaml v3 numbers the
// lines of its scanner's errors from 1 but those of its parser's errors
// (parserProblems) from 0, so the latter need one more; the golden tests
// catch a version of the library that changes this.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			n++
		}
		return n + 1, m[2]
	}
	return 2, strings.TrimPrefix(msg, "yaml: ")
}

// parserProblems are the messages of go-yaml's parser (parserc.go), as
// opposed to its scanner.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
}

// scalarString is a field's value as a string: any scalar, since YAML reads
// `model: 4` as a number.
func scalarString(v *yaml.Node) (string, error) {
	v = resolveAlias(v)
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be a string, not %s", kindName(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

func positiveInt(v *yaml.Node) (int, error) {
	v = resolveAlias(v)
	if v.Kind == yaml.ScalarNode {
		if n, err := strconv.Atoi(strings.TrimSpace(v.Value)); err == nil && n > 0 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("must be a positive whole number of turns, such as 8; got %s", describe(v))
}

// toolList reads tools or disallowedTools: "Read, Grep", a block list or a
// flow list. A null value (the key with nothing after it) is absent, which
// for tools means every tool; an empty string or list means none.
func toolList(v *yaml.Node) ([]string, error) {
	v = resolveAlias(v)
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		return splitTools(v.Value), nil
	case yaml.SequenceNode:
		out := []string{}
		for _, item := range v.Content {
			item = resolveAlias(item)
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, fmt.Errorf("must list tool names, such as [Read, Grep]; item on line %d is %s", item.Line+1, describe(item))
			}
			out = append(out, splitTools(item.Value)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be tool names, as \"Read, Grep\" or a list, not %s", kindName(v))
}

// splitTools splits "Read, Grep, Bash(git diff:*)" at commas and, outside
// parentheses, at spaces, so that "Read Grep" is two tools and a
// specifier such as "git diff:*" stays whole.
func splitTools(s string) []string {
	out := []string{}
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || unicode.IsSpace(r)):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

func resolveAlias(v *yaml.Node) *yaml.Node {
	for i := 0; v.Kind == yaml.AliasNode && v.Alias != nil && i < 16; i++ {
		v = v.Alias
	}
	return v
}

func kindName(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if v.Tag == "!!null" {
		return "empty"
	}
	return "a single value"
}

func describe(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		return strconv.Quote(v.Value)
	}
	return kindName(v)
}
