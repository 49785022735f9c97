package minimal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wfrun/wfrun/agentapi/schema"
)

// maxDepth bounds how deep Value descends (properties, items, $ref hops
// and branches together), so that a recursive schema ends.
const maxDepth = 64

// maxItems and maxSize bound the minimal value of an absurd schema
// (minItems: 1e9), so that Value fails instead of exhausting memory.
const (
	maxItems = 10000
	maxSize  = 1 << 20
)

// maxWork bounds the work of one Value call, counted as nodeWork for every
// schema node visited plus the bytes of every candidate encoded to be
// checked, so that a schema whose alternatives multiply (an anyOf inside a
// recursive $ref, say) ends with an error after a bounded search instead of
// searching for hours.
const (
	maxWork  = 32 << 20
	nodeWork = 1 << 10
)

// errTooMuchWork ends a search that has spent maxWork. An example would not
// help (examples are tried after the search), so it asks for a simpler
// schema.
var errTooMuchWork = errors.New("no minimal value could be built for the schema: its alternatives (anyOf, oneOf, recursive $refs) multiply past the search wfrun makes, so it gave up; simplify them")

// Value returns the smallest value that satisfies s (docs/providers.md,
// "The fake provider"): required properties only, in "properties" order;
// const; the first enum value; the first oneOf/anyOf branch that works;
// allOf merged; "" or minLength 'a's (a fixed example for known formats, a
// generated match for a pattern); 0 or the nearest allowed number; false;
// [] or minItems copies; null for type null; the first of several types.
// $ref is followed within the schema.
//
// Each part is checked against its own sub-schema as it is built, falling
// back to the part's enum, examples and default values; the whole value is
// validated with s before it is returned. A schema that defeats all of this
// (an unsatisfiable one, say) is an error whose sentence asks for an
// example. Value compiles the parts it checks on every call, so a caller
// that answers the same schema often keeps the result.
func Value(s *schema.Schema) (json.RawMessage, error) {
	root, err := parseOrdered(s.Raw())
	if err != nil { // Compile parsed the same text, so this cannot happen
		return nil, fmt.Errorf("the schema cannot be read again (%v)", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.Raw()))
	if err != nil {
		return nil, fmt.Errorf("the schema cannot be read again (%v)", err)
	}
	c, err := schema.NewCompiler(doc)
	if err != nil {
		return nil, err
	}
	g := &gen{root: root, compiler: c, subs: make(map[string]*jsonschema.Schema)}
	v, err := g.value(root, here(""), 0)
	if g.err != nil { // the search was cut short: say so rather than show a guess
		return nil, g.err
	}
	if err != nil {
		return nil, noValue(err)
	}
	out := encode(v)
	if len(out) > maxSize {
		return nil, fmt.Errorf("the smallest value wfrun could build for the schema has %d bytes, over the limit of %d: give the schema a smaller example under \"examples\"", len(out), maxSize)
	}
	if err := s.Validate(out); err != nil {
		return nil, fmt.Errorf("the smallest value wfrun could build for the schema, %s, does not satisfy it (%v): give the schema a valid example under \"examples\"", truncate(string(out), 200), unprefix(err))
	}
	return out, nil
}

// noValue is Value's error when the search failed.
func noValue(err error) error {
	return fmt.Errorf("no minimal value could be built for the schema (%v): give the schema an example under \"examples\"", err)
}

// loc is the JSON pointer of a sub-schema inside the document, when the
// schema being worked on is exactly that sub-schema (not a merge).
type loc struct {
	ptr   string
	known bool
}

func here(ptr string) loc { return loc{ptr: ptr, known: true} }

var nowhere = loc{}

// child returns the location of a sub-schema under keyword path tokens.
func (l loc) child(tokens ...string) loc {
	if !l.known {
		return nowhere
	}
	p := l.ptr
	for _, t := range tokens {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
		p += "/" + t
	}
	return here(p)
}

// gen builds one minimal value. It lives for one Value call, on one
// goroutine.
type gen struct {
	root     any                           // the schema in ordered form
	compiler *jsonschema.Compiler          // compiles parts of the schema by location
	subs     map[string]*jsonschema.Schema // compiled parts by JSON pointer; nil: not compilable alone

	work int   // spent so far, against maxWork
	err  error // errTooMuchWork once work passed maxWork; every later node fails with it
}

// spend adds n to the work done and reports errTooMuchWork once the total
// passes maxWork.
func (g *gen) spend(n int) error {
	g.work += n
	if g.work > maxWork {
		g.err = errTooMuchWork
	}
	return g.err
}

// size is the encoded size of v, counted as work.
func (g *gen) size(v any) int {
	n := len(encode(v))
	g.work += n
	return n
}

// valid reports whether v satisfies the sub-schema at l. An unknown
// location, or one the validator cannot compile alone, counts as valid:
// the final check of the whole value decides. Once the work budget is
// spent nothing is valid, so that the search unwinds at once.
func (g *gen) valid(l loc, v any) bool {
	if g.err != nil {
		return false // the search is over; Value reports why
	}
	if !l.known {
		return true
	}
	sch := g.sub(l.ptr)
	if sch == nil {
		return true
	}
	text := encode(v)
	g.work += len(text)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return false
	}
	return sch.Validate(doc) == nil
}

func (g *gen) sub(ptr string) *jsonschema.Schema {
	if sch, ok := g.subs[ptr]; ok {
		return sch
	}
	var frag strings.Builder
	for _, tok := range strings.Split(ptr, "/")[1:] {
		frag.WriteByte('/')
		frag.WriteString(url.PathEscape(tok))
	}
	sch, err := g.compiler.Compile(schema.DocumentURL + "#" + frag.String())
	if err != nil {
		sch = nil
	}
	g.subs[ptr] = sch
	return sch
}

// value builds the minimal value of the schema node found at l.
func (g *gen) value(node any, l loc, depth int) (any, error) {
	return g.valueFrom(node, l, l, depth)
}

// valueFrom builds the minimal value of node, checking candidates against
// the sub-schema at l; src is where node itself sits in the document, which
// differs from l when node is a merge.
func (g *gen) valueFrom(node any, l, src loc, depth int) (any, error) {
	obj, src, err := g.schemaObject(node, src, depth)
	if err != nil || obj == nil {
		return nil, err
	}
	if c, ok := obj.get("const"); ok {
		return c, nil
	}
	c := &candidates{g: g, l: l}
	if e, ok := obj.vals["enum"].([]any); ok && len(e) > 0 {
		for _, v := range e {
			if c.try(v) {
				return v, nil
			}
		}
		return c.first, nil
	}
	if v, ok := g.choose(obj, src, depth, c); ok {
		return v, nil
	}
	return c.fallback(obj)
}

// schemaObject is node as one flattened schema object, with where it
// sits in the document; nil, and no error, for a node that constrains
// nothing.
func (g *gen) schemaObject(node any, src loc, depth int) (*object, loc, error) {
	if depth > maxDepth {
		return nil, src, errors.New("the schema nests or recurses too deeply")
	}
	if err := g.spend(nodeWork); err != nil {
		return nil, src, err
	}
	switch n := node.(type) {
	case bool:
		if !n {
			return nil, src, errors.New("a part of the schema is false, which no value satisfies")
		}
	case *object:
		return g.flatten(n, src, depth)
	}
	return nil, src, nil // true, or not a schema (the validator has refused it already)
}

// candidates are the values tried at one location: the first of them, the
// last resort, and the first error a branch gave.
type candidates struct {
	g     *gen
	l     loc
	first any
	have  bool
	err   error
}

// try records the first candidate and reports whether v is good at c.l.
func (c *candidates) try(v any) bool {
	if !c.have {
		c.first, c.have = v, true
	}
	return c.g.valid(c.l, v)
}

// fail records err if it is the first error.
func (c *candidates) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// choose tries obj's oneOf (or else anyOf) branches in order, or without
// branches the value its type gives, and returns the first that is valid.
func (g *gen) choose(obj *object, src loc, depth int, c *candidates) (any, bool) {
	key := "oneOf"
	branches, _ := obj.vals[key].([]any)
	if len(branches) == 0 {
		key = "anyOf"
		branches, _ = obj.vals[key].([]any)
	}
	if len(branches) == 0 {
		v, err := g.byType(obj, src, depth)
		if err != nil {
			c.fail(err)
			return nil, false
		}
		return v, c.try(v)
	}
	rest := obj.without(key)
	for i, b := range branches {
		bo, ok := b.(*object)
		if !ok {
			if b != true {
				continue
			}
			bo = newObject()
		}
		fb, _, err := g.flatten(bo, src.child(key, strconv.Itoa(i)), depth+1)
		if err != nil {
			c.fail(err)
			continue
		}
		v, err := g.valueFrom(merge(rest, fb), c.l, nowhere, depth+1)
		if err != nil {
			c.fail(err)
			continue
		}
		if c.try(v) {
			return v, true
		}
	}
	return nil, false
}

// fallback tries the values the author wrote down (examples, then
// default), then settles for the first candidate, or says why there is
// none.
func (c *candidates) fallback(obj *object) (any, error) {
	if ex, ok := obj.vals["examples"].([]any); ok {
		for _, v := range ex {
			if c.l.known && c.try(v) {
				return v, nil
			}
		}
	}
	if d, ok := obj.get("default"); ok && c.l.known && c.try(d) {
		return d, nil
	}
	if c.have {
		return c.first, nil
	}
	if c.err == nil {
		return nil, errors.New("no branch of a oneOf or anyOf can be satisfied")
	}
	return nil, c.err
}

// flatten resolves $ref and allOf into one merged schema object. src is the
// location of the result when it is an unmodified node of the document.
func (g *gen) flatten(o *object, l loc, depth int) (*object, loc, error) {
	src := l
	for range maxDepth {
		if err := g.spend(nodeWork); err != nil {
			return nil, nowhere, err
		}
		if ref, ok := o.vals["$ref"].(string); ok {
			target, tl, err := g.resolve(ref)
			if err != nil {
				return nil, nowhere, err
			}
			depth++
			if depth > maxDepth {
				return nil, nowhere, errors.New("the schema's $refs recurse too deeply")
			}
			rest := o.without("$ref")
			if onlyAnnotations(rest) {
				o, src = target, tl
			} else {
				o, src = merge(rest, target), nowhere
			}
			continue
		}
		if all, ok := o.vals["allOf"].([]any); ok {
			merged := o.without("allOf")
			for i, sub := range all {
				so, ok := sub.(*object)
				if !ok {
					if sub == false {
						return nil, nowhere, errors.New("an allOf holds false, which no value satisfies")
					}
					continue
				}
				fs, _, err := g.flatten(so, src.child("allOf", strconv.Itoa(i)), depth+1)
				if err != nil {
					return nil, nowhere, err
				}
				merged = merge(merged, fs)
			}
			o, src = merged, nowhere
			continue
		}
		return o, src, nil
	}
	return nil, nowhere, errors.New("the schema's $refs and allOfs nest too deeply")
}

// onlyAnnotations reports whether o holds no keyword that constrains a
// value, so that {$ref, description} can stand for its target.
func onlyAnnotations(o *object) bool {
	for _, k := range o.keys {
		switch k {
		case "$schema", "$id", "$comment", "$defs", "definitions", "$anchor",
			"title", "description", "examples", "default", "readOnly", "writeOnly", "deprecated":
		default:
			return false
		}
	}
	return true
}

// resolve follows a $ref inside the document: "#", "#/json/pointer" or
// "#anchor". Anything else is outside what Value can follow.
func (g *gen) resolve(ref string) (*object, loc, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, nowhere, fmt.Errorf("cannot follow $ref %q", ref)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if o, ptr, ok := findAnchor(g.root, frag, ""); ok {
			return o, here(ptr), nil
		}
		return nil, nowhere, fmt.Errorf("cannot follow $ref %q", ref)
	}
	node := g.root
	ptr := ""
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			if u, err := url.PathUnescape(tok); err == nil {
				tok = u
			}
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			ptr = here(ptr).child(tok).ptr
			switch n := node.(type) {
			case *object:
				v, ok := n.get(tok)
				if !ok {
					return nil, nowhere, fmt.Errorf("$ref %q points nowhere", ref)
				}
				node = v
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(n) {
					return nil, nowhere, fmt.Errorf("$ref %q points nowhere", ref)
				}
				node = n[i]
			default:
				return nil, nowhere, fmt.Errorf("$ref %q points nowhere", ref)
			}
		}
	}
	switch n := node.(type) {
	case *object:
		return n, here(ptr), nil
	case bool:
		if n {
			return newObject(), here(ptr), nil
		}
		return nil, nowhere, fmt.Errorf("$ref %q points to false, which no value satisfies", ref)
	}
	return nil, nowhere, fmt.Errorf("$ref %q does not point to a schema", ref)
}

// findAnchor looks for a sub-schema declaring $anchor name (or, in older
// drafts, $id "#name").
func findAnchor(node any, name, ptr string) (*object, string, bool) {
	switch n := node.(type) {
	case *object:
		if a, _ := n.vals["$anchor"].(string); a == name {
			return n, ptr, true
		}
		if id, _ := n.vals["$id"].(string); id == "#"+name {
			return n, ptr, true
		}
		for _, k := range n.keys {
			if o, p, ok := findAnchor(n.vals[k], name, here(ptr).child(k).ptr); ok {
				return o, p, true
			}
		}
	case []any:
		for i, e := range n {
			if o, p, ok := findAnchor(e, name, here(ptr).child(strconv.Itoa(i)).ptr); ok {
				return o, p, true
			}
		}
	}
	return nil, "", false
}

// byType builds the value for the schema's (first) type.
func (g *gen) byType(o *object, src loc, depth int) (any, error) {
	t := typeOf(o)
	if t == "" && depth == 0 {
		t = "object" // the root of an answer schema accepts objects: answer with one
	}
	switch t {
	case "object":
		return g.object(o, src, depth)
	case "array":
		return g.array(o, src, depth)
	case "string":
		return minString(o), nil
	case "integer":
		return minNumber(o, true), nil
	case "number":
		return minNumber(o, false), nil
	case "boolean":
		return false, nil
	}
	return nil, nil
}

// typeOf returns the schema's declared type, the first of several, or the
// type its keywords imply; "" when nothing constrains it.
func typeOf(o *object) string {
	switch t := o.vals["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[0].(string)
			return s
		}
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := o.vals[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "dependentRequired", "propertyNames"):
		return "object"
	case has("items", "prefixItems", "minItems", "contains", "uniqueItems"):
		return "array"
	case has("minLength", "maxLength", "pattern", "format"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return ""
}

func (g *gen) object(o *object, src loc, depth int) (any, error) {
	out := newObject()
	props, _ := o.vals["properties"].(*object)
	if props == nil {
		props = newObject()
	}
	required := map[string]bool{}
	var order []string
	if req, ok := o.vals["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok && !required[name] {
				required[name] = true
				order = append(order, name)
			}
		}
	}
	total := 0 // bytes of the properties built so far
	add := func(name string) error {
		schema, at := g.propertySchema(o, props, name, src)
		v, err := g.value(schema, at, depth+1)
		if err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		if total += len(name) + g.size(v); total > maxSize {
			return fmt.Errorf("the object's properties would exceed %d bytes", maxSize)
		}
		out.set(name, v)
		return nil
	}
	for _, name := range props.keys {
		if required[name] {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range order {
		if _, done := out.get(name); !done {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	minProps := intOf(o.vals["minProperties"])
	if minProps > maxItems {
		return nil, fmt.Errorf("minProperties %d is too large to build", minProps)
	}
	for _, name := range props.keys {
		if len(out.keys) >= minProps {
			break
		}
		if _, done := out.get(name); !done {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	for i := 1; len(out.keys) < minProps && i <= minProps+len(out.keys); i++ {
		name := "property" + strconv.Itoa(i)
		if _, done := out.get(name); !done {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// propertySchema finds the schema for property name: properties, then the
// first matching patternProperties, then additionalProperties.
func (g *gen) propertySchema(o, props *object, name string, src loc) (any, loc) {
	if s, ok := props.get(name); ok {
		return s, src.child("properties", name)
	}
	if pp, ok := o.vals["patternProperties"].(*object); ok {
		for _, pat := range pp.keys {
			if re, err := compileRE(pat); err == nil && re.MatchString(name) {
				return pp.vals[pat], src.child("patternProperties", pat)
			}
		}
	}
	if ap, ok := o.get("additionalProperties"); ok {
		return ap, src.child("additionalProperties")
	}
	return true, nowhere
}

func (g *gen) array(o *object, src loc, depth int) (any, error) {
	n := intOf(o.vals["minItems"])
	var (
		prefix    []any
		prefixKey     = "prefixItems"
		items     any = true
		itemsLoc      = nowhere
	)
	if p, ok := o.vals["prefixItems"].([]any); ok {
		prefix = p
	}
	switch it := o.vals["items"].(type) {
	case []any: // draft 2019-09 and older: items is the tuple
		prefix, prefixKey = it, "items"
		if ai, ok := o.get("additionalItems"); ok {
			items, itemsLoc = ai, src.child("additionalItems")
		}
	case nil:
	default:
		items, itemsLoc = it, src.child("items")
	}
	if c, ok := o.get("contains"); ok {
		minContains := 1
		if _, set := o.get("minContains"); set {
			minContains = intOf(o.vals["minContains"])
		}
		if minContains > 0 {
			if n < len(prefix)+minContains {
				n = len(prefix) + minContains
			}
			items, itemsLoc = mergeSchemas(items, c), nowhere
		}
	}
	if n > maxItems {
		return nil, fmt.Errorf("minItems %d is too large to build", n)
	}
	out := make([]any, 0, n)
	var itemVal any
	haveItem := false
	total := 0 // bytes of the prefix items built so far
	for i := range n {
		if i < len(prefix) {
			v, err := g.value(prefix[i], src.child(prefixKey, strconv.Itoa(i)), depth+1)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			if total += g.size(v); total > maxSize {
				return nil, fmt.Errorf("the array's first %d items would exceed %d bytes", i+1, maxSize)
			}
			out = append(out, v)
			continue
		}
		if !haveItem {
			v, err := g.value(items, itemsLoc, depth+1)
			if err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
			itemVal, haveItem = v, true
			if total+(n-len(prefix))*g.size(v) > maxSize {
				return nil, fmt.Errorf("%d copies of the items' minimal value would exceed %d bytes", n-len(prefix), maxSize)
			}
		}
		out = append(out, itemVal)
	}
	return out, nil
}

// intOf reads a non-negative integer keyword value; anything else is 0.
func intOf(v any) int {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	f, err := n.Float64()
	if err != nil || f < 0 {
		return 0
	}
	if f > 1<<20 {
		return 1 << 20
	}
	return int(f)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// unprefix drops Validate's leading words, for nesting in another sentence.
func unprefix(err error) string {
	return strings.TrimPrefix(err.Error(), "the value does not match the schema: ")
}
