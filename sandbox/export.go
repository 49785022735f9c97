package sandbox

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// ParseJSON turns JSON text into a JS value with the original JSON.parse
// (scripts may replace the global JSON). Invalid JSON is an INVALID_REQUEST
// error; a caller parsing something other than request data re-codes it.
//
// Text nested deeper than MaxNesting levels is INVALID_REQUEST too: goja's
// parser recurses in Go once per level (see nesting.go).
func (r *Runtime) ParseJSON(raw []byte) (goja.Value, error) {
	if depthExceeds(raw, MaxNesting) {
		return nil, wferr.New(wferr.InvalidRequest,
			"invalid JSON: it nests deeper than %d levels; send flatter data", MaxNesting)
	}
	r.captureJSON()
	v, err := r.jsonParse(goja.Undefined(), r.VM.ToValue(string(raw)))
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return nil, wferr.Wrap(wferr.InvalidRequest, err, "invalid JSON: %s", r.describe(ex.Value()))
		}
		return nil, r.Error(err)
	}
	return v, nil
}

// ExportJSON converts v to JSON with JSON.stringify semantics, using the
// original JSON.stringify: undefined at the top level becomes null, nested
// undefined and functions are dropped, Date and toJSON are honoured. A cycle
// or a BigInt is RESULT_UNSERIALIZABLE; output longer than maxBytes is
// RESOURCE_LIMIT (maxBytes <= 0: no limit), and so is a value nested deeper
// than MaxNesting levels (see nesting.go). A throwing toJSON or getter is
// reported like any throw (see Error).
//
// It runs JavaScript (toJSON, getters), so it is for the loop goroutine only.
func (r *Runtime) ExportJSON(v goja.Value, maxBytes int) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	out, c, err := r.stringify(v, goja.Undefined(), goja.Undefined())
	if err != nil {
		if c != nil && c.tooDeep {
			return nil, nestingError(err)
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			if msg := ex.Value().String(); strings.HasPrefix(msg, "TypeError:") {
				switch {
				case strings.Contains(msg, "circular"):
					return nil, wferr.Wrap(wferr.ResultUnserializable, err,
						"the value contains a cycle (an object that refers back to itself), which JSON cannot represent: return a copy without the back reference")
				case strings.Contains(msg, "BigInt"):
					return nil, wferr.Wrap(wferr.ResultUnserializable, err,
						"the value contains a BigInt, which JSON cannot represent: convert it with String(x) or Number(x)")
				}
			}
		}
		return nil, r.Error(err)
	}
	if goja.IsUndefined(out) {
		return json.RawMessage("null"), nil
	}
	s := out.String()
	if maxBytes > 0 && len(s) > maxBytes {
		return nil, wferr.New(wferr.ResourceLimit, "the value is %d KiB of JSON; the limit is %d KiB: return less, or summarise it with an agent",
			(len(s)+1023)>>10, (maxBytes+1023)>>10)
	}
	return json.RawMessage(s), nil
}
