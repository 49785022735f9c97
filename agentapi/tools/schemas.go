package tools

import (
	"fmt"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// schemas are the tools' input schemas, in Claude Code's argument names
// and shapes. A test checks them against the argument structs.
var schemas = map[string]string{
	Read: `{"type":"object","properties":{
"file_path":{"type":"string","description":"The file to read: an absolute path, or one relative to the workspace root"},
"offset":{"type":"integer","minimum":0,"description":"The line number to start reading from (1-based); only for files too long to read at once"},
"limit":{"type":"integer","minimum":0,"description":"The number of lines to read (default 2000)"}},
"required":["file_path"],"additionalProperties":false}`,

	Write: `{"type":"object","properties":{
"file_path":{"type":"string","description":"The file to write: an absolute path, or one relative to the workspace root"},
"content":{"type":"string","description":"The whole new content of the file"}},
"required":["file_path","content"],"additionalProperties":false}`,

	Edit: `{"type":"object","properties":{
"file_path":{"type":"string","description":"The file to change: an absolute path, or one relative to the workspace root"},
"old_string":{"type":"string","description":"The exact text to replace, white space included; it must occur exactly once unless replace_all is true"},
"new_string":{"type":"string","description":"The text to put in its place (different from old_string)"},
"replace_all":{"type":"boolean","default":false,"description":"Replace every occurrence of old_string"}},
"required":["file_path","old_string","new_string"],"additionalProperties":false}`,

	Glob: `{"type":"object","properties":{
"pattern":{"type":"string","description":"The glob to match file paths against, relative to path: ** matches any folders, * any part of a name, {a,b} either (e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\")"},
"path":{"type":"string","description":"The folder to search in (default: the workspace root)"}},
"required":["pattern"],"additionalProperties":false}`,

	Grep: `{"type":"object","properties":{
"pattern":{"type":"string","description":"The regular expression to search for (RE2 syntax, as ripgrep's: escape literal braces, e.g. interface\\{\\})"},
"path":{"type":"string","description":"The file or folder to search in (default: the workspace root)"},
"glob":{"type":"string","description":"Only search files matching this glob (e.g. \"*.js\", \"*.{ts,tsx}\"; with a / it is matched against the path)"},
"type":{"type":"string","description":"Only search files of this type (e.g. js, py, rust, go, ts, java, md)"},
"output_mode":{"type":"string","enum":["files_with_matches","content","count"],"description":"files_with_matches (default): the paths of matching files; content: the matching lines; count: matches per file"},
"-i":{"type":"boolean","description":"Case-insensitive search"},
"-n":{"type":"boolean","description":"Show line numbers in content mode (default true)"},
"-A":{"type":"integer","minimum":0,"description":"Lines of context after each match (content mode)"},
"-B":{"type":"integer","minimum":0,"description":"Lines of context before each match (content mode)"},
"-C":{"type":"integer","minimum":0,"description":"Lines of context before and after each match (content mode)"},
"head_limit":{"type":"integer","minimum":0,"description":"Show at most this many entries (lines, files or counts; default 250)"},
"offset":{"type":"integer","minimum":0,"description":"Skip this many entries first, to page through long results"},
"multiline":{"type":"boolean","description":"Let the pattern span lines (. matches newlines too)"}},
"required":["pattern"],"additionalProperties":false}`,

	Bash: `{"type":"object","properties":{
"command":{"type":"string","description":"The command to run with bash -c, in the workspace root"},
"timeout":{"type":"integer","minimum":0,"maximum":600000,"description":"Timeout in milliseconds (default 120000, at most 600000)"},
"description":{"type":"string","description":"What the command does, in a few words"}},
"required":["command"],"additionalProperties":false}`,

	TodoWrite: `{"type":"object","properties":{
"todos":{"type":"array","description":"The whole updated task list","items":{"type":"object","properties":{
"content":{"type":"string","description":"The task"},
"status":{"type":"string","enum":["pending","in_progress","completed"]},
"activeForm":{"type":"string","description":"The task in the present continuous, e.g. \"Running the tests\""}},
"required":["content","status"],"additionalProperties":false}}},
"required":["todos"],"additionalProperties":false}`,
}

// description is what the model reads about a tool in workspace ws.
func description(name string, ws *workspace.Workspace) string {
	root := ws.Root()
	switch name {
	case Read:
		return fmt.Sprintf("Reads a text file of the workspace %s and shows it with line numbers (cat -n style). Shows at most 2000 lines and 100 KiB at a time, lines cut at 2000 characters; use offset and limit for the rest. Paths outside the workspace are refused.", root)
	case Write:
		return fmt.Sprintf("Writes a file in the workspace %s, replacing it if it exists and creating its folders. Prefer Edit for changing part of a file. Paths outside the workspace are refused.", root)
	case Edit:
		return fmt.Sprintf("Replaces exact text in a file of the workspace %s. old_string must match the file exactly (white space included) and occur exactly once, unless replace_all is true. Read the file first.", root)
	case Glob:
		return fmt.Sprintf("Finds files of the workspace %s by glob pattern (e.g. \"**/*.go\"), newest first, at most 100. Files ignored by .gitignore, .git and .wfrun/worktrees are skipped.", root)
	case Grep:
		return fmt.Sprintf("Searches the contents of the files of the workspace %s with a regular expression, like ripgrep: filter with glob or type, output_mode files_with_matches (default), content (matching lines, with -A/-B/-C context) or count. Files ignored by .gitignore, binary files and links are skipped.", root)
	case Bash:
		return bashDescription(ws)
	case TodoWrite:
		return "Keeps your task list for this job: send the whole list each time, each item with content and status (pending, in_progress, completed). Use it for work of several steps."
	}
	return ""
}

func bashDescription(ws *workspace.Workspace) string {
	d := fmt.Sprintf("Runs a command with bash -c in the workspace %s and returns its output (stdout and stderr together, at most 30000 bytes). Each call starts afresh in the workspace root: use cd DIR && CMD, and no state carries over. Timeout 2 minutes by default, at most 10. Background jobs are killed when the command exits; stdin is empty, so nothing interactive works.", ws.Root())
	switch ws.Mode() {
	case workspace.ReadOnly:
		d += " It runs in a read-only sandbox: it may read files and run programs, but nothing can be written anywhere."
	case workspace.WorkspaceWrite:
		d += " It runs in a sandbox: files may be written only inside the workspace and in $TMPDIR."
	}
	if ws.Mode().Sandboxed() && !ws.Network() {
		d += " The network is not available (TCP connections are refused)."
	}
	return d
}
