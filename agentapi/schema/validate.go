package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The limits of a mismatch explanation: a model reads it and a person sees
// it in an event, so it names the first few problems and counts the rest.
const (
	maxProblems    = 5
	maxMessageSize = 600
)

// Validate reports whether v, a JSON text, satisfies the schema. A mismatch
// is an error whose text is one sentence listing the failing locations,
// e.g. `/findings/0/severity: value must be one of "low", "medium", "high"`.
// Text that is not JSON is an error too.
func (s *Schema) Validate(v json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return fmt.Errorf("the value is not valid JSON (%v)", err)
	}
	return explain(s.compiled.Validate(doc))
}

// explain turns the validator's error tree into one sentence.
func explain(err error) error {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("the value does not match the schema: %v", err)
	}
	return fmt.Errorf("the value does not match the schema: %s", describe(ve, maxProblems, maxMessageSize))
}

// describe lists the leaves of a validation error tree ("/a/0: got string,
// want number"), without duplicates, at most max of them and about size
// bytes, with a count of the ones left out.
func describe(ve *jsonschema.ValidationError, max, size int) string {
	p := message.NewPrinter(language.English)
	var (
		seen  = map[string]bool{}
		items []string
	)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		item := location(e.InstanceLocation) + ": " + e.ErrorKind.LocalizedString(p)
		if !seen[item] {
			seen[item] = true
			items = append(items, item)
		}
	}
	walk(ve)
	if len(items) == 0 {
		return location(ve.InstanceLocation) + ": " + ve.ErrorKind.LocalizedString(p)
	}

	var b strings.Builder
	shown := 0
	for _, it := range items {
		if shown == max || (shown > 0 && b.Len()+len(it) > size) {
			break
		}
		if shown > 0 {
			b.WriteString("; ")
		}
		if len(it) > size {
			it = strings.ToValidUTF8(it[:size], "") + "…"
		}
		b.WriteString(it)
		shown++
	}
	if rest := len(items) - shown; rest > 0 {
		b.WriteString("; and " + strconv.Itoa(rest) + " more")
	}
	return b.String()
}

// location renders an instance location as a JSON pointer, "(root)" for the
// whole value.
func location(tokens []string) string {
	if len(tokens) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
