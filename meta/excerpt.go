package meta

import (
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// maxExcerpt bounds an excerpt in a message; longer ones end in "…".
const maxExcerpt = 60

// excerpt writes a short, approximate source form of e for an error
// message, rebuilt from the syntax tree since FromLiteral has no source
// text. Parts too deep or too long to be useful are written as "…".
func excerpt(e ast.Expression) string {
	s := render(e, 3)
	if r := []rune(s); len(r) > maxExcerpt {
		s = string(r[:maxExcerpt-1]) + "…"
	}
	return s
}

func render(e ast.Expression, depth int) string {
	if e == nil {
		return ""
	}
	if depth < 0 {
		return "…"
	}
	d := depth - 1
	switch n := e.(type) {
	case *ast.Identifier:
		return n.Name.String()
	case *ast.StringLiteral:
		return n.Literal
	case *ast.NumberLiteral:
		return n.Literal
	case *ast.BooleanLiteral:
		return n.Literal
	case *ast.NullLiteral:
		return "null"
	case *ast.RegExpLiteral:
		return strings.TrimSpace(n.Literal) // goja's literal may keep the space after it
	case *ast.ThisExpression:
		return "this"
	case *ast.SuperExpression:
		return "super"
	case *ast.TemplateLiteral:
		return render(n.Tag, d) + "`…`"
	case *ast.ArrayLiteral:
		return "[" + renderList(n.Value, d) + "]"
	case *ast.ObjectLiteral:
		if len(n.Value) == 0 {
			return "{}"
		}
		return "{…}"
	case *ast.DotExpression:
		return render(n.Left, d) + "." + n.Identifier.Name.String()
	case *ast.PrivateDotExpression:
		return render(n.Left, d) + ".#" + n.Identifier.Name.String()
	case *ast.BracketExpression:
		if _, ok := n.Left.(*ast.Optional); ok {
			return render(n.Left, d) + ".[" + render(n.Member, d) + "]"
		}
		return render(n.Left, d) + "[" + render(n.Member, d) + "]"
	case *ast.CallExpression:
		if opt, ok := n.Callee.(*ast.Optional); ok {
			return callee(opt.Expression, d) + "?.(" + renderList(n.ArgumentList, d) + ")"
		}
		return callee(n.Callee, d) + "(" + renderList(n.ArgumentList, d) + ")"
	case *ast.NewExpression:
		return "new " + render(n.Callee, d) + "(" + renderList(n.ArgumentList, d) + ")"
	case *ast.OptionalChain:
		return render(n.Expression, depth)
	case *ast.Optional:
		return render(n.Expression, depth) + "?" // the DotExpression or BracketExpression around it adds the rest
	case *ast.SpreadElement:
		return "..." + render(n.Expression, d)
	case *ast.FunctionLiteral:
		if n.Name != nil {
			return "function " + n.Name.Name.String() + "(…) {…}"
		}
		return "function (…) {…}"
	case *ast.ArrowFunctionLiteral:
		return "(…) => …"
	case *ast.ClassLiteral:
		return "class {…}"
	case *ast.UnaryExpression:
		op := n.Operator.String()
		if n.Postfix {
			return render(n.Operand, d) + op
		}
		switch n.Operator {
		case token.TYPEOF, token.VOID, token.DELETE:
			op += " "
		}
		return op + render(n.Operand, d)
	case *ast.BinaryExpression:
		return render(n.Left, d) + " " + n.Operator.String() + " " + render(n.Right, d)
	case *ast.AssignExpression:
		op := n.Operator.String()
		if n.Operator != token.ASSIGN {
			op += "=" // goja records `+=` as the operator PLUS
		}
		return render(n.Left, d) + " " + op + " " + render(n.Right, d)
	case *ast.ConditionalExpression:
		return render(n.Test, d) + " ? " + render(n.Consequent, d) + " : " + render(n.Alternate, d)
	case *ast.AwaitExpression:
		return "await " + render(n.Argument, d)
	case *ast.MetaProperty:
		if n.Meta != nil && n.Property != nil {
			return n.Meta.Name.String() + "." + n.Property.Name.String()
		}
	}
	return "…"
}

// callee renders the function part of a call, in parentheses where it
// would need them, as in `(() => …)()`.
func callee(e ast.Expression, depth int) string {
	switch e.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.ClassLiteral,
		*ast.BinaryExpression, *ast.ConditionalExpression, *ast.AssignExpression, *ast.UnaryExpression:
		return "(" + render(e, depth) + ")"
	}
	return render(e, depth)
}

func renderList(list []ast.Expression, depth int) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = render(e, depth)
	}
	return strings.Join(parts, ", ")
}
