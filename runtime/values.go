package runtime

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

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

// promiseType is what a promise object exports as. goja's promises have the
// class name "Object", so the type is how to tell them.
var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// isPromise reports whether o is a promise, without reading any property.
func isPromise(o *goja.Object) bool { return o.ExportType() == promiseType }

func exportArray(o *goja.Object) []goja.Value {
	n := int(o.Get("length").ToInteger())
	out := make([]goja.Value, n)
	for i := 0; i < n; i++ {
		out[i] = o.Get(fmt.Sprint(i))
	}
	return out
}

// describe names a value for an error message: primitives as the script
// would write them (0, -1.5, true, "a string", an empty string), objects by
// kind. It reads no property that could run script code beyond length.
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
			n := o.Get("length").ToInteger()
			if n == 0 {
				return "an empty array"
			}
			return fmt.Sprintf("an array of %d items", n)
		case isFunction(o):
			return "a function"
		case isPromise(o):
			return "a promise (did you forget await?)"
		case o.ClassName() == "String", o.ClassName() == "Number", o.ClassName() == "Boolean":
			return "a boxed " + strings.ToLower(o.ClassName()) + " (new " + o.ClassName() + "(…)); pass the plain value"
		}
		return "an object"
	}
	switch x := v.Export().(type) {
	case string:
		if x == "" {
			return "an empty string"
		}
		if strings.TrimSpace(x) == "" {
			return "a string of only spaces"
		}
		if utf8.RuneCountInString(x) > 40 {
			x = string([]rune(x)[:39]) + "…"
		}
		return strconv.Quote(x)
	case int64, float64, bool:
		return v.String()
	}
	return "a " + v.ExportType().String()
}
