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
	// MetaFallback says that the checks reached the meta and took the
	// request's FallbackMeta for it, the script and the request having
	// none; it is set even when a later check failed (Go only).
	MetaFallback bool `json:"-"`
}

// Check runs every pre-check of Start on req and executes nothing.
func (e *Engine) Check(req WorkflowStartRequest) CheckResult {
	p, fellBack, err := e.prepareReporting(req)
	if err != nil {
		var we *wferr.Error
		if !errors.As(err, &we) {
			we = wferr.Wrap(wferr.Internal, err, "%v", err)
		}
		return CheckResult{ErrorCode: we.Code, Error: we.Message, ErrorLine: we.Line, ErrorColumn: we.Column, MetaFallback: fellBack}
	}
	m := p.meta
	return CheckResult{OK: true, Meta: &m, Warnings: p.warnings, MetaFallback: fellBack}
}
