package engine

import (
	"errors"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
)

// CheckResult is the outcome of Check: the JSON that `wfrun check` prints.
type CheckResult struct {
	OK          bool               `json:"ok"`
	Meta        *meta.WorkflowMeta `json:"meta,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
	ErrorCode   ErrorCode          `json:"errorCode,omitempty"`
	Error       string             `json:"error,omitempty"`
	ErrorLine   int                `json:"errorLine,omitempty"`
	ErrorColumn int                `json:"errorColumn,omitempty"`
}

// Check runs every pre-check of Start on req and executes nothing.
func (e *Engine) Check(req WorkflowStartRequest) CheckResult {
	p, err := e.prepare(req)
	if err != nil {
		var we *wferr.Error
		if !errors.As(err, &we) {
			we = wferr.Wrap(wferr.Internal, err, "%v", err)
		}
		return CheckResult{ErrorCode: we.Code, Error: we.Message, ErrorLine: we.Line, ErrorColumn: we.Column}
	}
	m := p.meta
	return CheckResult{OK: true, Meta: &m, Warnings: p.warnings}
}
