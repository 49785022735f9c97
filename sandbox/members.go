package sandbox

import (
	"reflect"

	"github.com/dop251/goja/ast"
)

// anyMember reports whether test holds for a member expression (o.k or
// o[k]) that the assignment target writes: the target itself, or one
// inside a destructuring pattern. What a member belongs to is read, not
// written, so the walk does not go into a member it has found. goja's ast
// has no visitor, so it walks the exported fields by reflection.
func anyMember(target ast.Expression, test func(ast.Expression) bool) bool {
	found := false
	var visit func(reflect.Value)
	visit = func(v reflect.Value) {
		if found {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() || v.Type() == fileType {
				return
			}
			if e, ok := v.Interface().(ast.Expression); ok {
				switch e.(type) {
				case *ast.DotExpression, *ast.BracketExpression:
					found = test(e)
					return
				}
			}
			visit(v.Elem())
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i))
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					visit(v.Field(i))
				}
			}
		}
	}
	visit(reflect.ValueOf(target))
	return found
}
