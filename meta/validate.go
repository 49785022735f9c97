package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wfrun/wfrun/internal/wferr"
)

// maxNameLen is the longest name meta.name may have.
const maxNameLen = 64

// Parse validates meta JSON, from the request or from FromLiteral, and
// returns it as a WorkflowMeta.
//
// Every violation — a missing or malformed name, a missing or blank
// description, a known field of the wrong type, a phase without a title, a
// key written twice, a root that is not an object — is reported at once in
// one *wferr.Error with code META_INVALID and no position (the caller may
// add the position of the meta literal). A null optional field counts as
// absent.
//
// Unknown fields, at the top level or inside a phase, are not violations:
// they come back as warnings such as `unknown meta field "author" is
// ignored`, in the source order of their keys. Warnings are returned even
// when there is an error; the WorkflowMeta is then the zero value.
func Parse(raw json.RawMessage) (WorkflowMeta, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return WorkflowMeta{}, nil, wferr.New(wferr.MetaInvalid,
			"meta is empty; pass an object such as {\"name\": \"my-workflow\", \"description\": \"what it does\"}")
	}
	root, err := decodeJSON(raw)
	if err != nil {
		return WorkflowMeta{}, nil, wferr.Wrap(wferr.MetaInvalid, err,
			"meta is not valid JSON (%v); pass an object such as {\"name\": \"my-workflow\", \"description\": \"what it does\"}", err)
	}
	var c checker
	m := c.workflow(root)
	if len(c.problems) > 0 {
		return WorkflowMeta{}, c.warnings, wferr.New(wferr.MetaInvalid, "%s", c.message())
	}
	return m, c.warnings, nil
}

// checker collects violations and warnings while reading a decoded meta.
type checker struct {
	problems []string
	warnings []string
}

func (c *checker) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *checker) message() string {
	if len(c.problems) == 1 {
		return "meta is invalid: " + c.problems[0]
	}
	return fmt.Sprintf("meta is invalid; %d problems: %s", len(c.problems), strings.Join(c.problems, "; "))
}

func (c *checker) workflow(root jsonValue) WorkflowMeta {
	var m WorkflowMeta
	if root.kind != kindObject {
		c.problem("meta must be an object such as {\"name\": \"my-workflow\", \"description\": \"what it does\"}, not %s", root.kind)
		return m
	}
	c.duplicates(root, "meta")
	for _, f := range root.fields {
		switch f.key {
		case "name", "description", "whenToUse", "model", "phases":
		default:
			c.warnings = append(c.warnings, fmt.Sprintf("unknown meta field %s is ignored", strconv.Quote(f.key)))
		}
	}

	if v, ok := root.field("name"); ok && v.kind != kindNull {
		m.Name = c.name(v)
	} else {
		c.problem("meta.name is missing; add a name such as \"my-workflow\" (1 to %d letters, digits, '-', '_' or '.')", maxNameLen)
	}
	if v, ok := root.field("description"); ok && v.kind != kindNull {
		m.Description = c.text(v, "meta.description", "a sentence saying what the workflow does", true)
	} else {
		c.problem("meta.description is missing; add a sentence saying what the workflow does")
	}
	if v, ok := root.field("whenToUse"); ok && v.kind != kindNull {
		m.WhenToUse = c.text(v, "meta.whenToUse", "a sentence saying when to choose this workflow", false)
	}
	if v, ok := root.field("model"); ok && v.kind != kindNull {
		m.Model = c.short(c.text(v, "meta.model", "the name of a model, or leave it out", true), "meta.model")
	}
	if v, ok := root.field("phases"); ok && v.kind != kindNull {
		m.Phases = c.phases(v)
	}
	return m
}

func (c *checker) name(v jsonValue) string {
	if v.kind != kindString {
		c.problem("meta.name must be a string such as \"my-workflow\", not %s", v.kind)
		return ""
	}
	switch n := utf8.RuneCountInString(v.str); {
	case n == 0:
		c.problem("meta.name is empty; write a name such as \"my-workflow\"")
	case n > maxNameLen:
		c.problem("meta.name is %d characters long; shorten it to at most %d", n, maxNameLen)
	}
	if bad := badNameChars(v.str); bad != "" {
		c.problem("meta.name %s contains %s; use only letters, digits, '-', '_' and '.', e.g. %s",
			strconv.Quote(v.str), bad, strconv.Quote(suggestName(v.str)))
	}
	return v.str
}

// text checks a string field; what says what the field should hold.
func (c *checker) text(v jsonValue, path, what string, required bool) string {
	if v.kind != kindString {
		c.problem("%s must be a string (%s), not %s", path, what, v.kind)
		return ""
	}
	if required && strings.TrimSpace(v.str) == "" {
		c.problem("%s is blank; write %s", path, what)
	}
	return v.str
}

// MaxNameBytes is the longest model name or phase title meta may give, as
// for agent()'s options and phase(): 1 KiB.
const MaxNameBytes = 1 << 10

// short reports a name longer than MaxNameBytes and returns s.
func (c *checker) short(s, path string) string {
	if len(s) > MaxNameBytes {
		c.problem("%s is %d bytes long; the limit is 1 KiB (%d bytes): give the model's or phase's name only", path, len(s), MaxNameBytes)
	}
	return s
}

func (c *checker) phases(v jsonValue) []Phase {
	if v.kind != kindArray {
		c.problem("meta.phases must be an array of objects such as [{\"title\": \"Plan\"}], not %s", v.kind)
		return nil
	}
	var phases []Phase
	for i, item := range v.items {
		path := "meta.phases[" + strconv.Itoa(i) + "]"
		phases = append(phases, c.phase(item, path))
	}
	return phases
}

func (c *checker) phase(v jsonValue, path string) Phase {
	var p Phase
	if v.kind != kindObject {
		c.problem("%s must be an object such as {\"title\": \"Plan\"}, not %s", path, v.kind)
		return p
	}
	c.duplicates(v, path)
	for _, f := range v.fields {
		switch f.key {
		case "title", "detail", "model":
		default:
			c.warnings = append(c.warnings, fmt.Sprintf("unknown field %s in %s is ignored", strconv.Quote(f.key), path))
		}
	}
	if t, ok := v.field("title"); ok && t.kind != kindNull {
		p.Title = c.short(c.text(t, path+".title", "the phase's name, as passed to phase(title)", true), path+".title")
	} else {
		c.problem("%s.title is missing; add the phase's name, as passed to phase(title), e.g. {\"title\": \"Plan\"}", path)
	}
	if d, ok := v.field("detail"); ok && d.kind != kindNull {
		p.Detail = c.text(d, path+".detail", "what happens in this phase", false)
	}
	if mo, ok := v.field("model"); ok && mo.kind != kindNull {
		p.Model = c.short(c.text(mo, path+".model", "the name of a model, or leave it out", true), path+".model")
	}
	return p
}

// duplicates reports keys that appear more than once in an object, which
// JSON.parse would resolve silently in favour of the last.
func (c *checker) duplicates(v jsonValue, path string) {
	count := make(map[string]int, len(v.fields))
	for _, f := range v.fields {
		count[f.key]++
		if count[f.key] == 2 {
			c.problem("%s has the key %s more than once; keep one", path, strconv.Quote(f.key))
		}
	}
}

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
}

// maxListed bounds how many bad characters a message names.
const maxListed = 5

// badNameChars lists the distinct characters of name that a name may not
// hold, quoted, or returns "" when there are none.
func badNameChars(name string) string {
	var bad []string
	seen := map[rune]bool{}
	for _, r := range name {
		if isNameChar(r) || seen[r] {
			continue
		}
		seen[r] = true
		if len(bad) == maxListed {
			bad = append(bad, "others")
			break
		}
		bad = append(bad, strconv.QuoteRune(r))
	}
	switch len(bad) {
	case 0:
		return ""
	case 1:
		return bad[0]
	}
	return strings.Join(bad[:len(bad)-1], ", ") + " and " + bad[len(bad)-1]
}

// suggestName turns name into a valid one: other characters become '-'.
func suggestName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if isNameChar(r) {
			b.WriteRune(r)
		} else if !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "my-workflow"
	}
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
	}
	return s
}
