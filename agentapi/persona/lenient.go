package persona

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// People write agent files for Claude Code, which does not hold them to
// YAML: a description with an unquoted ": ", an example dialogue of
// user: and assistant: lines, or a second paragraph at the margin all load
// there. When strict YAML fails, Parse reads the front matter the way
// such files are meant: each top-level key: value line starts a field,
// and the field runs until the next one, its continuation lines indented
// or not.

// topKey matches a line that may start a field: a key at the margin, a
// colon, then a space or the end of the line.
var topKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:([ \t]|$)`)

// claudeFields are the front-matter keys of Claude Code's agent files:
// they start a field whatever the line around them looks like.
var claudeFields = map[string]bool{
	fieldName: true, fieldDescription: true, fieldTools: true, fieldDisallowedTools: true,
	fieldModel: true, fieldEffort: true, fieldMaxTurns: true, fieldPermissionMode: true,
	"color": true, "skills": true, "hooks": true, "memory": true, "mcpServers": true,
	"background": true, "isolation": true, "initialPrompt": true,
}

// prose are words that end with a colon at the margin of a description
// (the speakers of example dialogues, headings) and are never keys.
var prose = map[string]bool{
	"user": true, "assistant": true, "human": true, "ai": true, "system": true,
	"example": true, "examples": true, "context": true, "commentary": true,
	"note": true, "input": true, "output": true, "response": true, "q": true, "a": true,
}

// startsField reports whether a line of the front matter starts a field
// when it is read leniently, and the field's key.
func startsField(line string) (string, bool) {
	m := topKey.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	key := m[1]
	if claudeFields[key] {
		return key, true
	}
	// Keys are lowerCamelCase; "Examples:" or "Context:" at the margin is
	// a line of the description before it.
	if key[0] < 'a' || key[0] > 'z' || prose[strings.ToLower(key)] {
		return "", false
	}
	return key, true
}

// lenientFields reads front matter that is not valid YAML line by line. It
// returns false when no reading can make fields of it: text before the
// first key, or no key at all. A continuation line that starts with one of
// Claude Code's keys (an indented "  tools: Read") is an error: read as
// text it would silently drop that field, and a tools line dropped means
// every tool.
func lenientFields(front []byte) ([]field, *hiddenKey, bool) {
	lines := strings.Split(strings.ReplaceAll(string(front), "\r\n", "\n"), "\n")
	type segment struct {
		key   string
		start int // index in lines
		end   int // exclusive
	}
	var segs []segment
	for i, l := range lines {
		if key, ok := startsField(l); ok {
			if n := len(segs); n > 0 {
				segs[n-1].end = i
			}
			segs = append(segs, segment{key: key, start: i, end: len(lines)})
			continue
		}
		if len(segs) == 0 {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				return nil, nil, false
			}
		}
	}
	if len(segs) == 0 {
		return nil, nil, false
	}
	out := make([]field, 0, len(segs))
	for _, sg := range segs {
		for sg.end > sg.start+1 && strings.TrimSpace(lines[sg.end-1]) == "" {
			sg.end--
		}
		seg := lines[sg.start:sg.end]
		// The front matter's line i is the file's line i+2.
		f := field{key: sg.key, line: sg.start + 2, last: sg.end + 1}
		v, err := yamlValue(sg.key, seg)
		if v != nil {
			shiftLines(v, sg.start)
			f.value = v
			out = append(out, f)
			continue
		}
		for i, l := range seg[1:] {
			if key, ok := startsField(strings.TrimSpace(l)); ok && claudeFields[key] {
				return nil, &hiddenKey{key: key, line: sg.start + i + 3, in: sg.key}, true
			}
		}
		f.value, f.text, f.err = textValue(seg, sg.start), true, err
		out = append(out, f)
	}
	return out, nil, true
}

// hiddenKey is a key of Claude Code's found indented inside another field
// when the front matter is read leniently.
type hiddenKey struct {
	key  string
	line int // in the file
	in   string
}

// yamlValue parses one field's lines on their own, and returns the value
// when they are a YAML mapping of that single key; otherwise the YAML
// error, if there was one.
func yamlValue(key string, seg []string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(seg, "\n")), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != key {
		return nil, nil
	}
	return root.Content[1], nil
}

// shiftLines moves the lines of a node parsed from a field's lines alone to
// the lines of the front matter: Parse reports v.Line+1 as the file's line.
func shiftLines(v *yaml.Node, start int) {
	v.Line += start
	for _, c := range v.Content {
		shiftLines(c, start)
	}
}

// blockIndicator matches the header of a YAML block scalar (|, >-, |2 …).
var blockIndicator = regexp.MustCompile(`^[|>][-+0-9]*$`)

// textValue is a field's value as written: the rest of its key's line and
// every continuation line, each trimmed, one per line; quotes around the
// whole value are taken off.
func textValue(seg []string, start int) *yaml.Node {
	first := strings.TrimSpace(seg[0][strings.IndexByte(seg[0], ':')+1:])
	if blockIndicator.MatchString(first) {
		first = "" // description: | whose lines are not all indented
	}
	parts := []string{first}
	for _, l := range seg[1:] {
		parts = append(parts, strings.TrimSpace(l))
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	if n := len(text); n >= 2 && (text[0] == '"' || text[0] == '\'') && text[n-1] == text[0] {
		text = text[1 : n-1]
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text, Line: start + 1}
	if text == "" {
		v.Tag = "!!null"
	}
	return v
}
