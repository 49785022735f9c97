package main

import (
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

// Scripts in the DSH dialect carry no `export const meta`; their meta comes
// with the request. From a shell that is one flag too many, so a script run
// without any meta gets one named after its file, and a notice says so.

// fileMeta is the meta supplied for a script that has none.
var fileMeta = setup.FileMeta

// supplyMeta gives req the file's meta when neither the script nor the
// request has any. It asks the engine once, with the file's meta as the
// request's fallback (engine.WorkflowStartRequest.FallbackMeta), and
// supplies it when the check took it and found it valid. The meta is then
// the request's own, so that the run folder's request, and a resume of it,
// carries it.
func supplyMeta(eng *engine.Engine, req *engine.WorkflowStartRequest) (supplied bool) {
	if len(req.Meta) > 0 {
		return false
	}
	try := *req
	try.FallbackMeta = fileMeta(req.ScriptName)
	if c := eng.Check(try); !c.MetaFallback || c.ErrorCode == engine.CodeMetaInvalid {
		return false
	}
	req.Meta = try.FallbackMeta
	return true
}
