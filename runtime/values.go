package runtime

import (
	"fmt"

	"github.com/dop251/goja"
)

// Small predicates over goja values, used by the host functions to check
// their arguments without calling back into script code.

func isString(v goja.Value) bool {
	if v == nil {
		return false
	}
	if isObject(v) {
		return false // a boxed new String(…) is not a prompt
	}
	_, ok := v.Export().(string)
	return ok
}

func isObject(v goja.Value) bool {
	_, ok := v.(*goja.Object)
	return ok
}

func isArray(o *goja.Object) bool {
	return o.ClassName() == "Array"
}

func isFunction(o *goja.Object) bool {
	_, ok := goja.AssertFunction(o)
	return ok
}

// isPlainObject reports whether v is an object that is not an array,
// function, or a boxed primitive.
func isPlainObject(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	switch o.ClassName() {
	case "Object":
		return !isFunction(o)
	}
	return false
}

func exportArray(o *goja.Object) []goja.Value {
	n := int(o.Get("length").ToInteger())
	out := make([]goja.Value, n)
	for i := 0; i < n; i++ {
		out[i] = o.Get(fmt.Sprint(i))
	}
	return out
}

// describe names a value's kind for an error message.
func describe(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if goja.IsNull(v) {
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		switch {
		case isArray(o):
			return "an array"
		case isFunction(o):
			return "a function"
		case o.ClassName() == "Promise":
			return "a promise (did you forget await?)"
		}
		return "an object"
	}
	switch v.Export().(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a " + v.ExportType().String()
}
