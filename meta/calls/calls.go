package calls

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// Callee is the name whose calls are agent calls: the engine passes it to
// sandbox.Parse's watch.
const Callee = "agent"

// Script is what the analysis reads of a parsed script.
type Script interface {
	// Calls returns the calls of a plain identifier callee, nil when the
	// script binds that name itself.
	Calls(name string) []*ast.CallExpression
	// Position maps a position of the script's trees to the user's line
	// and column.
	Position(idx file.Idx) (line, col int)
}

// AgentCall is an agent(…) call found in the source whose options are an
// object literal: agent('…', {…}) or agent({…}). The engine checks its keys
// at check time, so an option nobody honours is reported with its line
// before anything runs, not only when the call is reached.
type AgentCall struct {
	// ObjectForm is true for agent({prompt, …}).
	ObjectForm bool
	// Keys are the literal keys of the options object, in source order.
	Keys []AgentKey
	// Open is true when the object has a spread or a computed key, so the
	// keys listed may not be all the call passes.
	Open bool
}

// AgentKey is one literal key of an agent() options object.
type AgentKey struct {
	Name         string
	Line, Column int
	// Value is the key's value as written (for `{model}` shorthand, the
	// identifier). It belongs to the Script: read it, never change it. Its
	// positions map to the user's file with Script.Position.
	Value ast.Expression
}

// Agent returns the agent() calls of s with literal options, in source
// order; none when the script binds its own agent.
func Agent(s Script) []AgentCall {
	var out []AgentCall
	for _, c := range s.Calls(Callee) {
		if ac, ok := agentCall(s, c); ok {
			out = append(out, ac)
		}
	}
	return out
}

// agentCall reads one call; ok is false when it has no object literal in
// the options position.
func agentCall(s Script, c *ast.CallExpression) (AgentCall, bool) {
	if len(c.ArgumentList) == 0 {
		return AgentCall{}, false
	}
	// The prompt may be any expression: the sandbox may have rewritten a
	// template into a call of its own before this reads the tree.
	var obj *ast.ObjectLiteral
	form := false
	if first, ok := c.ArgumentList[0].(*ast.ObjectLiteral); ok {
		obj, form = first, true
	} else if len(c.ArgumentList) > 1 {
		obj, _ = c.ArgumentList[1].(*ast.ObjectLiteral)
	}
	if obj == nil {
		return AgentCall{}, false
	}
	call := AgentCall{ObjectForm: form}
	for _, p := range obj.Value {
		switch p := p.(type) {
		case *ast.PropertyKeyed:
			key, isStr := p.Key.(*ast.StringLiteral)
			if p.Computed || !isStr {
				call.Open = true
				continue
			}
			line, col := s.Position(key.Idx)
			call.Keys = append(call.Keys, AgentKey{Name: key.Value.String(), Line: line, Column: col, Value: p.Value})
		case *ast.PropertyShort:
			line, col := s.Position(p.Name.Idx)
			call.Keys = append(call.Keys, AgentKey{Name: p.Name.Name.String(), Line: line, Column: col, Value: &p.Name})
		default:
			call.Open = true
		}
	}
	return call, true
}
