// Package wferr holds the closed vocabulary of wfrun's error codes and the
// error type every layer returns. It is internal so that the public surface
// stays in package engine, which re-exports Code, Error and the constants.
//
// An Error always carries a Code and a sentence that says what went wrong and
// what to do instead; script errors add the line and column in the user's
// file. Errors wrap their cause, so errors.Is and errors.As see through them;
// As and CodeOf find an Error anywhere in a chain.
package wferr

import (
	"errors"
	"fmt"
)

// Code is one of the error codes of docs/errors.md. The set is closed.
type Code string

// The error codes. Each doc line says when it is used.
const (
	ScriptParse          Code = "SCRIPT_PARSE"          // the source is not runnable JavaScript of the accepted dialects
	MetaInvalid          Code = "META_INVALID"          // meta is missing, not a pure literal, or has invalid fields
	InvalidRequest       Code = "INVALID_REQUEST"       // the request itself is malformed (unknown provider, bad caps, bad args JSON)
	InvalidArgument      Code = "INVALID_ARGUMENT"      // a host function was called with the wrong kind of argument
	UnsupportedOption    Code = "UNSUPPORTED_OPTION"    // an agent() option nobody honours, or the provider cannot honour
	UnsupportedSchema    Code = "UNSUPPORTED_SCHEMA"    // an agent() schema that is not a usable JSON Schema with an object root
	AgentCap             Code = "AGENT_CAP"             // the run would exceed its total-agent cap
	ItemCap              Code = "ITEM_CAP"              // parallel() or pipeline() got more items than allowed
	BudgetExhausted      Code = "BUDGET_EXHAUSTED"      // agent() called after the token budget was spent
	AgentStart           Code = "AGENT_START"           // the provider could not start a child (it is broken or misconfigured)
	AgentResult          Code = "AGENT_RESULT"          // the provider returned a result that breaks the contract
	Nesting              Code = "NESTING"               // workflow() called from inside a nested workflow
	ScriptError          Code = "SCRIPT_ERROR"          // an uncaught throw in the script
	ScriptStalled        Code = "SCRIPT_STALLED"        // the script awaits something nothing will settle
	ResultUnserializable Code = "RESULT_UNSERIALIZABLE" // the returned value cannot be turned into JSON
	ResourceLimit        Code = "RESOURCE_LIMIT"        // stack, memory or output size exceeded
	Timeout              Code = "TIMEOUT"               // the run's deadline passed
	Cancelled            Code = "CANCELLED"             // the run was cancelled
	Internal             Code = "INTERNAL"              // a bug in wfrun itself (a recovered panic); see docs/architecture.md ("The INTERNAL code")
)

// Codes lists every code, in the order of docs/errors.md.
var Codes = []Code{
	ScriptParse, MetaInvalid, InvalidRequest, InvalidArgument, UnsupportedOption,
	UnsupportedSchema, AgentCap, ItemCap, BudgetExhausted, AgentStart, AgentResult,
	Nesting, ScriptError, ScriptStalled, ResultUnserializable, ResourceLimit,
	Timeout, Cancelled, Internal,
}

// Error is a wfrun error: a code, a message for a person or a model, and
// (for errors in the script) a 1-based line and column in the user's file.
type Error struct {
	Code    Code
	Message string
	Line    int   // 0 when the error has no position
	Column  int   // 0 when the error has no position
	Cause   error // wrapped cause, may be nil
}

// Error renders "CODE: message (line L, column C)".
func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Line > 0 {
		s += fmt.Sprintf(" (line %d, column %d)", e.Line, e.Column)
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// New returns an Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// At returns an Error with a position.
func At(code Code, line, col int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Line: line, Column: col}
}

// Wrap returns an Error that wraps cause.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// As returns the first *Error in err's chain. Every layer wraps its
// causes, so a type assertion would miss an *Error wrapped with %w: use As
// (or CodeOf) instead.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of the first *Error in err's chain, or "" if none.
// errors.Is does not compare codes: test codes with CodeOf.
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	return ""
}
