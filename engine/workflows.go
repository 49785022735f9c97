package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/sandbox"
)

var workflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// WorkflowSearchDirs returns the folders saved workflows are searched in,
// in order, first match winning — the order personas use: the explicit
// folders (--workflows-dir, repeatable), then WORKSPACE/.claude/workflows
// and WORKSPACE/.wfrun/workflows, then HOME/.claude/workflows. An empty
// workspace or home leaves its folders out; a folder named twice is kept at
// its first place. Give the list to Config.WorkflowsDirs; the CLI builds it
// with this function, so that a Claude Code project's saved workflows are
// found with no flag.
func WorkflowSearchDirs(explicit []string, workspace, home string) []string {
	return persona.ProjectDirs("workflows", explicit, workspace, home)
}

// workflowIndex holds the checked scripts of the workflows folders, apart
// from the engine's compile cache so that looking a name up — which may
// read every file of a folder — never evicts the scripts callers run. A
// file is checked again only when its size or modification time changed;
// files that disappeared are forgotten on the next listing of their folder.
type workflowIndex struct {
	dirs []string // searched in order, first match winning
	// workspace is the real path of Config.Workspace, or "": a file beneath
	// it is read without following any link, since a child may have
	// written links there. given is Config.Workspace made absolute, which
	// the folders of WorkflowSearchDirs start with when a link leads to
	// the workspace.
	workspace, given string

	mu    sync.Mutex
	files map[string]*workflowFile // by path
}

type workflowFile struct {
	path    string
	size    int64
	modTime time.Time
	c       *compiled
	meta    meta.WorkflowMeta // its static meta; Name "" without valid meta
}

// newWorkflowIndex returns the index of cfg's folders, or nil when there is
// none and no workspace (workflow() is then unavailable).
func newWorkflowIndex(cfg Config) *workflowIndex {
	var dirs []string
	if cfg.WorkflowsDir != "" {
		dirs = append(dirs, cfg.WorkflowsDir)
	}
	dirs = WorkflowSearchDirs(append(dirs, cfg.WorkflowsDirs...), "", "")
	ws, given := "", ""
	if cfg.Workspace != "" {
		given, _ = filepath.Abs(cfg.Workspace)
		ws = given
		if real, err := filepath.EvalSymlinks(given); err == nil {
			ws = real
		}
	}
	if len(dirs) == 0 && ws == "" {
		return nil
	}
	return &workflowIndex{dirs: dirs, workspace: ws, given: given}
}

// workflowLoader resolves workflow(name) in the workflows folders, in
// order: in each, first NAME.js, then the .js file whose static meta has
// that name. It returns nil when the engine has no folder.
func (e *Engine) workflowLoader() func(string) (*sandbox.Script, error) {
	if e.workflows == nil || len(e.workflows.dirs) == 0 {
		return nil
	}
	return e.workflows.load
}

// workflowFileLoader resolves workflow({scriptPath}) in Config.Workspace;
// nil without a workspace.
func (e *Engine) workflowFileLoader() func(string) (*sandbox.Script, error) {
	if e.workflows == nil || e.workflows.workspace == "" {
		return nil
	}
	return e.workflows.loadFile
}

func (w *workflowIndex) load(name string) (*sandbox.Script, error) {
	if !workflowName.MatchString(name) {
		return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): a workflow name is 1–64 letters, digits, '.', '-' or '_'", name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, dir := range w.dirs {
		if f, err := w.file(filepath.Join(dir, name+".js")); err == nil {
			return f.script(name)
		}
		for _, f := range w.scan(dir) {
			if f.meta.Name == name {
				return f.script(name)
			}
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, dir := range w.dirs {
		for _, f := range w.scan(dir) {
			n := f.meta.Name
			if n == "" {
				n = strings.TrimSuffix(filepath.Base(f.path), ".js")
			}
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	available := "none"
	if len(names) > 0 {
		available = strings.Join(names, ", ")
	}
	return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): no such saved workflow in %s; available: %s. Save it as NAME.js in one of those folders (.claude/workflows/ of the workspace is the usual place)", name, strings.Join(w.dirs, ", "), available)
}

// scan returns the checked .js files of dir, in name order, and forgets
// the files of dir that are gone. The caller holds w.mu.
func (w *workflowIndex) scan(dir string) []*workflowFile {
	entries, err := w.readDir(dir)
	if err != nil {
		entries = nil
	}
	seen := make(map[string]bool, len(entries))
	var out []*workflowFile
	for _, ent := range entries {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".js") {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		seen[path] = true
		if f, err := w.file(path); err == nil {
			out = append(out, f)
		}
	}
	for path := range w.files {
		if filepath.Dir(path) == dir && !seen[path] {
			delete(w.files, path)
		}
	}
	return out
}

// readDir lists dir in name order. A folder beneath the workspace is
// opened without following any link, so that a link or a named pipe a
// child put there can neither lead the lookup out of the workspace nor
// block it.
func (w *workflowIndex) readDir(dir string) ([]fs.DirEntry, error) {
	var entries []fs.DirEntry
	if rel, inside := w.beneath(dir); inside {
		f, err := nofollow.OpenDir(w.workspace, rel)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if entries, err = f.ReadDir(-1); err != nil {
			return nil, err
		}
	} else {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", dir)
		}
		if entries, err = os.ReadDir(dir); err != nil {
			return nil, err
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// file returns the checked script at path, checking it again only when the
// file changed. A file beneath the workspace is read without following any
// link. The caller holds w.mu.
func (w *workflowIndex) file(path string) (*workflowFile, error) {
	rel, inside := w.beneath(path)
	stat := os.Stat
	if inside {
		stat = os.Lstat
	}
	st, err := stat(path)
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (a link, a folder or a device); a saved workflow is a .js file", path)
	}
	if err == nil && st.Size() > maxWorkflowFile {
		err = fmt.Errorf("%s is %d bytes, more than the %d a workflow file may have", path, st.Size(), maxWorkflowFile)
	}
	if err != nil {
		delete(w.files, path)
		return nil, err
	}
	if f, ok := w.files[path]; ok && f.size == st.Size() && f.modTime.Equal(st.ModTime()) {
		return f, nil
	}
	var src []byte
	if inside {
		src, err = nofollow.ReadFile(w.workspace, rel)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	f := &workflowFile{path: path, size: st.Size(), modTime: st.ModTime(), c: compile(path, string(src))}
	if f.c.err == nil && f.c.meta != nil {
		// A saved workflow's meta is held to the rules of any script's.
		if m, _, err := meta.Parse(f.c.meta); err != nil {
			f.c = &compiled{err: err}
		} else {
			f.meta = m
		}
	}
	if w.files == nil {
		w.files = make(map[string]*workflowFile)
	}
	w.files[path] = f
	return f, nil
}

// beneath reports whether path lies beneath the workspace, and its path
// relative to it.
func (w *workflowIndex) beneath(path string) (string, bool) {
	if w.workspace == "" {
		return "", false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	for _, root := range []string{w.workspace, w.given} {
		rel, err := filepath.Rel(root, abs)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return rel, true
		}
	}
	return "", false
}

// script returns f's compiled script, or its pre-check error as the error
// of the workflow() call: the saved script's own code and position, with a
// sentence that names the file.
func (f *workflowFile) script(name string) (*sandbox.Script, error) {
	if f.c.err == nil {
		return f.c.script, nil
	}
	we, ok := wferr.As(f.c.err)
	if !ok {
		we = wferr.Wrap(wferr.Internal, f.c.err, "%v", f.c.err)
	}
	where := ""
	if we.Line > 0 {
		where = fmt.Sprintf(" at its line %d, column %d", we.Line, we.Column)
	}
	return nil, &wferr.Error{Code: we.Code, Line: we.Line, Column: we.Column, Cause: f.c.err,
		Message: fmt.Sprintf("workflow(%q): the saved workflow %s does not pass its checks%s: %s", name, filepath.Base(f.path), where, we.Message)}
}

// maxWorkflowFile is the largest workflow file read: a script may have
// 512 KiB, and anything much larger is not one.
const maxWorkflowFile = 1 << 20

// inWorkspace resolves a scriptPath: relative to the workspace, or
// absolute beneath it. It returns the full path and the path relative to
// the workspace.
func (w *workflowIndex) inWorkspace(what, path string) (full, rel string, err error) {
	if w.workspace == "" {
		return "", "", wferr.New(wferr.InvalidArgument, "%s: this engine has no workspace to resolve the path in; pass the workflow's name or its script instead (Config.Workspace sets one)", what)
	}
	full = path
	if !filepath.IsAbs(full) {
		full = filepath.Join(w.workspace, path)
	}
	rel, inside := w.beneath(full)
	if !inside {
		return "", "", wferr.New(wferr.InvalidArgument, "%s: the path is outside the workspace %s; name a .js file inside it, relative to it", what, w.workspace)
	}
	return filepath.Clean(full), rel, nil
}

// loadFile resolves workflow({scriptPath}): a .js file inside the
// workspace, named relative to it (or absolute beneath it), read without
// following any link.
func (w *workflowIndex) loadFile(path string) (*sandbox.Script, error) {
	what := fmt.Sprintf("workflow({scriptPath: %q})", path)
	full, _, err := w.inWorkspace(what, path)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := w.file(full)
	if err != nil {
		return nil, fileError(what, path, w.workspace, err)
	}
	return f.script(filepath.Base(path))
}

// fileError is the error of a workflow file that cannot be read.
func fileError(what, path, workspace string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return wferr.New(wferr.InvalidArgument, "%s: no such file in the workspace %s; name a .js file relative to it", what, workspace)
	}
	return wferr.Wrap(wferr.InvalidArgument, err, "%s: cannot read it: %v", what, err)
}

// FindSavedWorkflow resolves name in cfg's workflows folders as
// workflow(name) would in a run of an engine with cfg, without making one:
// the command line runs a saved workflow by name with it. It returns the
// file's path and its source.
func FindSavedWorkflow(cfg Config, name string) (file, source string, err error) {
	w := newWorkflowIndex(cfg)
	if w == nil || len(w.dirs) == 0 {
		return "", "", wferr.New(wferr.InvalidArgument, "workflow(%q): no workflows folder is configured; save workflows in WORKSPACE/.claude/workflows, or set --workflows-dir (CLI) or Config.WorkflowsDirs", name)
	}
	s, err := w.load(name)
	if err != nil {
		return "", "", err
	}
	return s.Name, s.Source, nil
}

// ReadWorkflowFile reads a workflow script of the workspace for the
// workflow tool's scriptPath: path is relative to Config.Workspace (or
// absolute inside it), and is read without following any link. It returns
// the file's path and its source, unchecked: Start checks it as any
// script, so that its errors point into the file.
func (e *Engine) ReadWorkflowFile(path string) (file, source string, err error) {
	w := e.workflows
	what := fmt.Sprintf("scriptPath %q", path)
	if w == nil || w.workspace == "" {
		return "", "", wferr.New(wferr.InvalidRequest, "%s: this host has no workspace to read it from; pass the script itself, or the name of a saved workflow", what)
	}
	full, rel, err := w.inWorkspace(what, path)
	if err != nil {
		return "", "", err
	}
	st, err := os.Lstat(full)
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (a link, a folder or a device); name the .js file itself", full)
	}
	if err == nil && st.Size() > maxWorkflowFile {
		err = fmt.Errorf("it is %d bytes, more than the %d a workflow file may have", st.Size(), maxWorkflowFile)
	}
	var src []byte
	if err == nil {
		src, err = nofollow.ReadFile(w.workspace, rel)
	}
	if err != nil {
		return "", "", fileError(what, path, w.workspace, err)
	}
	return full, string(src), nil
}

// SavedWorkflow is one saved workflow the engine can run by name.
type SavedWorkflow struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	WhenToUse   string   `json:"whenToUse,omitempty"`
	Phases      []string `json:"phases,omitempty"`
	// File is the saved script's path.
	File string `json:"file"`
}

// SavedWorkflowError is a file of a workflows folder that does not load:
// it cannot be read, or its script or meta fails its checks.
type SavedWorkflowError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// WorkflowDir is one folder of the search list, and whether it exists.
type WorkflowDir struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

// SavedWorkflows is what workflow(name) can find: the folders searched in
// order, the workflows (a name found earlier hiding the same name later),
// and the files that failed to load.
type SavedWorkflows struct {
	Dirs      []WorkflowDir        `json:"dirs"`
	Workflows []SavedWorkflow      `json:"workflows"`
	Errors    []SavedWorkflowError `json:"errors"`
}

// SavedWorkflows lists the saved workflows of the engine's folders, read
// now (a file changed since the last call is checked again).
func (e *Engine) SavedWorkflows() SavedWorkflows { return e.workflows.list() }

// ListSavedWorkflows lists the saved workflows of cfg's folders, as
// SavedWorkflows does for an engine with cfg, without making one.
func ListSavedWorkflows(cfg Config) SavedWorkflows { return newWorkflowIndex(cfg).list() }

func (w *workflowIndex) list() SavedWorkflows {
	out := SavedWorkflows{Dirs: []WorkflowDir{}, Workflows: []SavedWorkflow{}, Errors: []SavedWorkflowError{}}
	if w == nil {
		return out
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]bool{}
	for _, dir := range w.dirs {
		entries, err := w.readDir(dir)
		out.Dirs = append(out.Dirs, WorkflowDir{Path: dir, Found: err == nil})
		for _, ent := range entries {
			if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".js") {
				continue
			}
			path := filepath.Join(dir, ent.Name())
			f, err := w.file(path)
			if err != nil {
				out.Errors = append(out.Errors, SavedWorkflowError{File: path, Message: fmt.Sprintf("cannot be read: %v", err)})
				continue
			}
			if f.c.err != nil || f.c.meta == nil {
				se := SavedWorkflowError{File: path, Message: "has no export const meta = {name, description}: a saved workflow needs one"}
				if f.c.err != nil {
					se.Message = f.c.err.Error()
					if we, ok := wferr.As(f.c.err); ok {
						se.Line, se.Message = we.Line, we.Message
					}
				}
				out.Errors = append(out.Errors, se)
				continue
			}
			if seen[f.meta.Name] {
				continue // an earlier folder (or file) wins
			}
			seen[f.meta.Name] = true
			sw := SavedWorkflow{Name: f.meta.Name, Description: f.meta.Description, WhenToUse: f.meta.WhenToUse, File: path}
			for _, p := range f.meta.Phases {
				sw.Phases = append(sw.Phases, p.Title)
			}
			out.Workflows = append(out.Workflows, sw)
		}
	}
	sort.SliceStable(out.Workflows, func(i, j int) bool { return out.Workflows[i].Name < out.Workflows[j].Name })
	return out
}
