package minimal

import (
	"encoding/json"
	"math/big"
)

// merge returns one schema that asks for what a and b both ask for, as far
// as Value needs it: sub-schemas that meet are joined with allOf, lists
// of required names are united, lower bounds take the larger value and
// upper bounds the smaller, types and enums intersect. Keywords it cannot
// combine keep a's value; the validator checks the result in the end.
func merge(a, b *object) *object {
	out := a.without()
	for _, k := range b.keys {
		bv := b.vals[k]
		av, ok := out.get(k)
		if !ok {
			out.set(k, bv)
			continue
		}
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			ao, aok := av.(*object)
			bo, bok := bv.(*object)
			if !aok || !bok {
				continue
			}
			m := ao.without()
			for _, name := range bo.keys {
				if x, ok := m.get(name); ok {
					m.set(name, mergeSchemas(x, bo.vals[name]))
				} else {
					m.set(name, bo.vals[name])
				}
			}
			out.set(k, m)
		case "required":
			aa, _ := av.([]any)
			ba, _ := bv.([]any)
			u := append([]any(nil), aa...)
			for _, x := range ba {
				if !containsJSON(u, x) {
					u = append(u, x)
				}
			}
			out.set(k, u)
		case "type":
			if t := intersectTypes(av, bv); t != nil {
				out.set(k, t)
			}
		case "enum":
			aa, _ := av.([]any)
			ba, _ := bv.([]any)
			var both []any
			for _, x := range aa {
				if containsJSON(ba, x) {
					both = append(both, x)
				}
			}
			if len(both) > 0 {
				out.set(k, both)
			}
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains":
			if greater(bv, av) {
				out.set(k, bv)
			}
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains":
			if greater(av, bv) {
				out.set(k, bv)
			}
		case "items", "additionalProperties", "additionalItems", "contains", "propertyNames",
			"unevaluatedProperties", "unevaluatedItems":
			out.set(k, mergeSchemas(av, bv))
		case "oneOf", "anyOf", "not", "$ref", "if", "then", "else":
			// Both sides constrain with the same keyword: keep a's here and
			// carry b's in an allOf, which flatten resolves afterwards.
			extra := newObject()
			extra.set(k, bv)
			all, _ := out.vals["allOf"].([]any)
			out.set("allOf", append(append([]any(nil), all...), extra))
		}
	}
	return out
}

// mergeSchemas joins two sub-schemas (objects or booleans).
func mergeSchemas(a, b any) any {
	if a == true || a == nil {
		return b
	}
	if b == true || b == nil {
		return a
	}
	if a == false || b == false {
		return false
	}
	ao, aok := a.(*object)
	bo, bok := b.(*object)
	if !aok || !bok {
		return a
	}
	o := newObject()
	o.set("allOf", []any{ao, bo})
	return o
}

func intersectTypes(a, b any) any {
	list := func(v any) []string {
		switch t := v.(type) {
		case string:
			return []string{t}
		case []any:
			var out []string
			for _, x := range t {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
			return out
		}
		return nil
	}
	bl := list(b)
	var both []any
	for _, t := range list(a) {
		for _, u := range bl {
			switch {
			case t == u:
				both = append(both, t)
			case t == "number" && u == "integer", t == "integer" && u == "number":
				both = append(both, "integer")
			default:
				continue
			}
			break
		}
	}
	switch len(both) {
	case 0:
		return nil
	case 1:
		return both[0]
	}
	return both
}

func containsJSON(list []any, v any) bool {
	for _, x := range list {
		if equalJSON(x, v) {
			return true
		}
	}
	return false
}

// greater reports whether a and b are numbers with a > b.
func greater(a, b any) bool {
	x, ok1 := ratOf(a)
	y, ok2 := ratOf(b)
	return ok1 && ok2 && x.Cmp(y) > 0
}

func ratOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return r, ok
}
