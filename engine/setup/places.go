package setup

import (
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
)

// Local is the engine configuration of a command started in workspace
// ("" the current folder) without flags, as wfrun tool describes what a
// wfrun mcp started there would serve: the personas and the saved
// workflows it finds in the workspace and in home.
func Local(workspace, home string) (engine.Config, error) {
	ws, err := WorkspaceDir(workspace)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{Personas: persona.Load(persona.SearchDirs(nil, ws, home)), Workspace: ws,
		WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, home)}, nil
}

// SavedWorkflows lists the saved workflows that workflow(name) and `wfrun
// NAME` find with the folders dirs, the workspace (WorkspaceDir of
// workspace) and home, and the files that failed to load.
func SavedWorkflows(dirs []string, workspace, home string) (engine.SavedWorkflows, error) {
	ws, err := WorkspaceDir(workspace)
	if err != nil {
		return engine.SavedWorkflows{}, err
	}
	return engine.ListSavedWorkflows(engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs(dirs, ws, home), Workspace: ws}), nil
}
