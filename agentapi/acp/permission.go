package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// decision is the answer to one permission request, and why.
type decision struct {
	allow  bool
	reason string // for a refusal: a sentence for the child's note
}

// decide answers a session/request_permission from the run's sandbox mode,
// the tool call's kind and the paths it names. Nobody is asked: a wfrun
// child has no person behind it. The rules (docs/agents.md, "Permission
// requests"):
//
//   - read, search, think, fetch: allowed in every mode;
//   - edit, delete, move: allowed where the mode can write
//     (workspace-write, danger-full-access), if the call names at least one
//     path;
//   - execute, switch_mode, other and a call without a kind: allowed only
//     in danger-full-access, because a command the agent runs itself is
//     not confined by wfrun's sandbox, and wfrun cannot tell what the
//     others do.
//
// In every mode each path the call names must resolve inside the child's
// root, as wfrun's own file tools are held to it.
func decide(ws *workspace.Workspace, kind sdk.ToolKind, paths []string) decision {
	for _, p := range paths {
		if _, err := ws.Resolve(p); err != nil {
			return decision{reason: fmt.Sprintf("%v", err)}
		}
	}
	mode := ws.Mode()
	switch kind {
	case sdk.ToolKindRead, sdk.ToolKindSearch, sdk.ToolKindThink, sdk.ToolKindFetch:
		return decision{allow: true}
	case sdk.ToolKindEdit, sdk.ToolKindDelete, sdk.ToolKindMove:
		switch {
		case !mode.CanWrite():
			return decision{reason: fmt.Sprintf("the run's sandbox mode is %s, so the agent may not %s files", mode, kind)}
		case len(paths) == 0:
			return decision{reason: fmt.Sprintf("the request names no file, so wfrun cannot tell whether the %s stays in the workspace %s", kind, ws.Root())}
		}
		return decision{allow: true}
	}
	if mode == workspace.DangerFullAccess {
		return decision{allow: true}
	}
	what := fmt.Sprintf("a tool call of kind %q", kind)
	switch kind {
	case sdk.ToolKindExecute:
		return decision{reason: fmt.Sprintf("a command the agent runs itself is not confined by wfrun's sandbox, and the run's sandbox mode is %s; run with --sandbox danger-full-access to allow it", mode)}
	case sdk.ToolKindSwitchMode:
		return decision{reason: fmt.Sprintf("the agent may not change its own mode under the sandbox mode %s", mode)}
	case "":
		what = "a tool call without a kind"
	}
	return decision{reason: fmt.Sprintf("wfrun cannot tell what %s does, so it is refused under the sandbox mode %s", what, mode)}
}

// choose picks the option that carries out d: allow_once before
// allow_always, reject_once before reject_always (the narrowest that does
// it). An agent that offers no option of the right kind gets "cancelled",
// the one outcome that never allows anything.
func choose(opts []sdk.PermissionOption, allow bool) sdk.RequestPermissionOutcome {
	prefer := []sdk.PermissionOptionKind{sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways}
	if allow {
		prefer = []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways}
	}
	for _, kind := range prefer {
		for _, o := range opts {
			if o.Kind == kind {
				return sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}
			}
		}
	}
	return sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}
}
