package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/wfrun/wfrun/engine"
)

// Scripts in the DSH dialect carry no `export const meta`; their meta comes
// with the request. From a shell that is one flag too many, so a script run
// without any meta gets one named after its file, and a notice says so.

// maxMetaName is the longest meta name (DESIGN.md §3.1).
const maxMetaName = 64

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileMeta is the meta supplied for a script that has none.
func fileMeta(scriptName string) json.RawMessage {
	name := strings.TrimSuffix(scriptName, filepath.Ext(scriptName))
	name = strings.Trim(notNameChar.ReplaceAllString(name, "-"), "-")
	if len(name) > maxMetaName {
		name = name[:maxMetaName]
	}
	if name == "" {
		name = "workflow"
	}
	raw, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{name, scriptName + " run from the command line"})
	return raw
}

// supplyMeta gives req the file's meta when neither the script nor the
// request has any. Rather than recognise the engine's "no meta" message,
// it asks the engine twice: a request without meta that fails META_INVALID,
// and passes the meta check once meta is supplied, had none. (A script with
// its own meta would fail the second check too, because the two differ.)
func supplyMeta(eng *engine.Engine, req *engine.WorkflowStartRequest) (supplied bool) {
	if len(req.Meta) > 0 {
		return false
	}
	if c := eng.Check(*req); c.OK || c.ErrorCode != engine.CodeMetaInvalid {
		return false
	}
	try := *req
	try.Meta = fileMeta(req.ScriptName)
	if c := eng.Check(try); !c.OK && c.ErrorCode == engine.CodeMetaInvalid {
		return false
	}
	req.Meta = try.Meta
	return true
}

// applyModel makes model the run's default model when the meta sets none.
// The engine has no request field for it yet, so it goes into the request's
// meta; meta that comes from the script itself cannot be extended that way
// (the two would differ). It returns a notice when the model is not used.
func applyModel(eng *engine.Engine, req *engine.WorkflowStartRequest, model string) (notice string) {
	c := eng.Check(*req)
	if !c.OK || c.Meta == nil {
		return "" // the run fails its pre-checks anyway, and says why
	}
	if c.Meta.Model != "" {
		if c.Meta.Model != model {
			return "--model " + model + " is not used: the workflow's meta sets model " + c.Meta.Model
		}
		return ""
	}
	if len(req.Meta) == 0 {
		return "--model " + model + " is not used: the script's own meta sets no model, and a script's meta cannot be extended from the command line; add model: '" + model + "' to its export const meta"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(req.Meta, &fields); err != nil || fields == nil {
		return ""
	}
	fields["model"], _ = json.Marshal(model)
	withModel, _ := json.Marshal(fields)
	try := *req
	try.Meta = withModel
	if c := eng.Check(try); !c.OK {
		// Only possible when the script has the same meta in export const
		// meta as in --meta: adding the model makes them differ.
		return "--model " + model + " is not used: the script's own meta sets no model; add model: '" + model + "' to its export const meta"
	}
	req.Meta = withModel
	return ""
}
