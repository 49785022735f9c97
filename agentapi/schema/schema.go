package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DocumentURL names the answer schema inside the validator. The host is
// reserved (.invalid), so nothing can ever be fetched from it; messages for
// people never show it.
const DocumentURL = "https://schema.wfrun.invalid/answer.json"

// Schema is a compiled JSON Schema for a child's answer. It is immutable
// after Compile and safe for concurrent use.
type Schema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// Compile checks that raw is a usable JSON Schema for an answer and compiles
// it. The schema must be a JSON object (not a boolean schema) that compiles
// under its $schema draft (2020-12 when absent) and whose root accepts
// objects: a root "type", when present, must be "object" or an array holding
// only "object". A $ref may point only inside the schema.
//
// The error is a plain error whose text is one sentence saying what is wrong
// and what to write instead.
func Compile(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("the schema is empty: write a JSON object such as {type:'object', properties:{answer:{type:'string'}}, required:['answer']}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON (%v): write it as a JSON object such as {type:'object', properties:{answer:{type:'string'}}}", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		if _, isBool := doc.(bool); isBool {
			return nil, errors.New("the schema is a boolean schema (true or false), which cannot describe an answer: write an object schema instead, e.g. {type:'object', properties:{answer:{type:'string'}}, required:['answer']}")
		}
		return nil, fmt.Errorf("the schema must be a JSON object, not %s: write e.g. {type:'object', properties:{answer:{type:'string'}}, required:['answer']}", jsonKind(doc))
	}
	if err := checkRootType(obj); err != nil {
		return nil, err
	}

	c, err := NewCompiler(doc)
	if err != nil {
		return nil, err
	}
	compiled, err := c.Compile(DocumentURL)
	if err != nil {
		return nil, compileError(err)
	}
	return &Schema{raw: append(json.RawMessage(nil), raw...), compiled: compiled}, nil
}

// NewCompiler returns a validator compiler set up the way Compile sets up
// its own, for code that must compile parts of a schema by location (the
// fake provider's generator checks each part of the value it builds): draft
// 2020-12 unless $schema names another, format assertions on, and a loader
// that refuses every URL, so nothing is fetched. doc is a decoded schema
// (jsonschema.UnmarshalJSON) that has passed Compile; it is registered at
// DocumentURL, so the part at JSON pointer /p/q compiles as
// DocumentURL+"#/p/q" (each token URL-escaped). A Compiler is not safe for
// concurrent use.
func NewCompiler(doc any) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(DocumentURL, doc); err != nil {
		return nil, fmt.Errorf("the schema cannot be registered with the validator (%v): this is a bug in wfrun, please report it", err)
	}
	return c, nil
}

// Raw returns the schema text as it was given to Compile. The caller must
// not modify it.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// checkRootType refuses a root whose declared type cannot be an object. A
// "type" of the wrong JSON kind is left to the validator, which names it.
func checkRootType(obj map[string]any) error {
	t, ok := obj["type"]
	if !ok {
		return nil
	}
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, v := range t {
			s, ok := v.(string)
			if !ok {
				return nil
			}
			names = append(names, s)
		}
	default:
		return nil
	}
	onlyObject := len(names) > 0
	for _, n := range names {
		if n != "object" {
			onlyObject = false
		}
	}
	if onlyObject {
		return nil
	}
	if len(names) == 1 && names[0] == "array" {
		return errors.New("the schema's root must be an object: wrap the array in a property, e.g. {type:'object', properties:{items:{type:'array', …}}, required:['items']}")
	}
	if len(names) == 1 {
		return fmt.Errorf("the schema's root must be an object, not %q: wrap the value in a property, e.g. {type:'object', properties:{value:{type:'%s'}}, required:['value']}", names[0], names[0])
	}
	return fmt.Errorf("the schema's root must be an object, but its type is [%s]: make the root {type:'object', …} and put the other types in a property, e.g. {type:'object', properties:{value:{type:[…]}}, required:['value']}", strings.Join(names, ", "))
}

// errRemoteRef is what the loader returns for every URL it is asked for.
var errRemoteRef = errors.New("wfrun does not load schemas from outside the schema")

// refusingLoader refuses every URL. The validator loads its own
// meta-schemas from embedded copies before it asks a loader, so refusing
// here means: no network, no files.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) { return nil, errRemoteRef }

// compileError turns a validator error into one sentence for the script's
// author.
func compileError(err error) error {
	var (
		load    *jsonschema.LoadURLError
		invalid *jsonschema.SchemaValidationError
		regex   *jsonschema.InvalidRegexError
		ptr     *jsonschema.JSONPointerNotFoundError
		anchor  *jsonschema.AnchorNotFoundError
		draft   *jsonschema.UnsupportedDraftError
	)
	switch {
	case errors.As(err, &load):
		return fmt.Errorf("the schema refers to %q, which is outside it, and wfrun never loads schemas from the network or from files: copy that definition under $defs and refer to it as \"#/$defs/NAME\"", shortURL(load.URL))
	case errors.As(err, &invalid):
		var ve *jsonschema.ValidationError
		if errors.As(invalid.Err, &ve) {
			msg := describe(ve, 3, 400)
			if strings.Contains(msg, "is not valid regex") {
				return fmt.Errorf("the schema is not a valid JSON Schema (%s): write patterns in RE2 syntax, without lookaround or backreferences", msg)
			}
			return fmt.Errorf("the schema is not a valid JSON Schema (%s): fix those keywords", msg)
		}
		return fmt.Errorf("the schema is not a valid JSON Schema (%v): fix it", invalid.Err)
	case errors.As(err, &regex):
		return fmt.Errorf("the schema's pattern %q at %s is not a regular expression wfrun can use (%v): write it in RE2 syntax, without lookaround or backreferences", regex.Regex, fragment(regex.URL), regex.Err)
	case errors.As(err, &ptr):
		return fmt.Errorf("a $ref in the schema points to %s, which does not exist: define the target under $defs and refer to it as \"#/$defs/NAME\"", fragment(ptr.URL))
	case errors.As(err, &anchor):
		return fmt.Errorf("a $ref in the schema names the anchor %q, which the schema does not define: define the target under $defs and refer to it as \"#/$defs/NAME\"", anchor.Reference)
	case errors.As(err, &draft):
		return fmt.Errorf("the schema's $schema %q is not a JSON Schema draft wfrun knows: leave $schema out (draft 2020-12) or use \"https://json-schema.org/draft/2020-12/schema\" or \"http://json-schema.org/draft-07/schema#\"", shortURL(draft.URL))
	}
	return fmt.Errorf("the schema does not compile (%s): fix or simplify it", shortURL(err.Error()))
}

// shortURL removes wfrun's internal base URL from s, so that messages show
// locations as the author wrote them.
func shortURL(s string) string {
	s = strings.ReplaceAll(s, DocumentURL, "")
	return strings.ReplaceAll(s, DocumentURL[:strings.LastIndexByte(DocumentURL, '/')+1], "")
}

// fragment renders a schema URL as the JSON pointer inside the schema.
func fragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[i:]
	} else {
		u = shortURL(u)
	}
	if u == "" || u == "#" {
		return "the root"
	}
	return u
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	}
	return "an object"
}
