package sandbox

import (
	"github.com/dop251/goja/ast"
)

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

// AgentCalls returns the agent() calls with literal options, in source
// order. It returns nil when the script declares its own binding named
// agent: its calls may not be the host function's.
func (s *Script) AgentCalls() []AgentCall {
	if s.agentShadowed {
		return nil
	}
	return s.agentCalls
}

// agentCall reads one call expression; ok is false when it is not a call of
// the identifier agent with an object literal in the options position.
func (s *Script) agentCall(c *ast.CallExpression) (AgentCall, bool) {
	id, ok := c.Callee.(*ast.Identifier)
	if !ok || id.Name != "agent" || len(c.ArgumentList) == 0 {
		return AgentCall{}, false
	}
	var obj *ast.ObjectLiteral
	form := false
	switch first := c.ArgumentList[0].(type) {
	case *ast.ObjectLiteral:
		obj, form = first, true
	case *ast.StringLiteral, *ast.TemplateLiteral:
		if len(c.ArgumentList) > 1 {
			obj, _ = c.ArgumentList[1].(*ast.ObjectLiteral)
		}
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
			line, col := s.posOfIdx(key.Idx)
			call.Keys = append(call.Keys, AgentKey{Name: key.Value.String(), Line: line, Column: col, Value: p.Value})
		case *ast.PropertyShort:
			line, col := s.posOfIdx(p.Name.Idx)
			call.Keys = append(call.Keys, AgentKey{Name: p.Name.Name.String(), Line: line, Column: col, Value: &p.Name})
		default:
			call.Open = true
		}
	}
	return call, true
}
