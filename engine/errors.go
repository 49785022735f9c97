package engine

import "github.com/wfrun/wfrun/internal/wferr"

// ErrorCode is one of the closed set of error codes of a WorkflowResult.
type ErrorCode = wferr.Code

// Error is the error type of every failed pre-check and failed run: a code,
// a sentence that says what was wrong and what to do instead, and for script
// errors the line and column in the user's file. Use errors.As to get it.
type Error = wferr.Error

// The error codes; docs/errors.md says when each is used and what to do.
const (
	CodeScriptParse          = wferr.ScriptParse
	CodeMetaInvalid          = wferr.MetaInvalid
	CodeInvalidRequest       = wferr.InvalidRequest
	CodeInvalidArgument      = wferr.InvalidArgument
	CodeUnsupportedOption    = wferr.UnsupportedOption
	CodeUnsupportedSchema    = wferr.UnsupportedSchema
	CodeAgentCap             = wferr.AgentCap
	CodeItemCap              = wferr.ItemCap
	CodeBudgetExhausted      = wferr.BudgetExhausted
	CodeAgentStart           = wferr.AgentStart
	CodeAgentResult          = wferr.AgentResult
	CodeNesting              = wferr.Nesting
	CodeScriptError          = wferr.ScriptError
	CodeScriptStalled        = wferr.ScriptStalled
	CodeResultUnserializable = wferr.ResultUnserializable
	CodeResourceLimit        = wferr.ResourceLimit
	CodeTimeout              = wferr.Timeout
	CodeCancelled            = wferr.Cancelled
	CodeInternal             = wferr.Internal
)

// CodeOf returns the error code carried by err, or "" if err is not a wfrun error.
func CodeOf(err error) ErrorCode { return wferr.CodeOf(err) }
