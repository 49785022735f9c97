package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/sandbox"
)

var workflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// workflowIndex holds the checked scripts of the workflows folder, apart
// from the engine's compile cache so that looking a name up — which may
// read every file of the folder — never evicts the scripts callers run. A
// file is checked again only when its size or modification time changed;
// files that disappeared are forgotten on the next listing.
type workflowIndex struct {
	dir string

	mu    sync.Mutex
	files map[string]*workflowFile // by path
}

type workflowFile struct {
	path    string
	size    int64
	modTime time.Time
	c       *compiled
	name    string // its static meta's name; "" without valid meta
}

// workflowLoader resolves workflow(name) in Config.WorkflowsDir: first
// NAME.js, then the .js file whose static meta has that name. It returns nil
// when no folder is configured.
func (e *Engine) workflowLoader() func(string) (*sandbox.Script, error) {
	if e.workflows == nil {
		return nil
	}
	return e.workflows.load
}

func (w *workflowIndex) load(name string) (*sandbox.Script, error) {
	if !workflowName.MatchString(name) {
		return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): a workflow name is 1–64 letters, digits, '.', '-' or '_'", name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, err := w.file(filepath.Join(w.dir, name+".js")); err == nil {
		return f.script(name)
	}
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): cannot read the workflows folder %s: %v", name, w.dir, err)
	}
	seen := make(map[string]bool, len(entries))
	var names []string
	var found *workflowFile
	for _, ent := range entries {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".js") {
			continue
		}
		path := filepath.Join(w.dir, ent.Name())
		seen[path] = true
		f, err := w.file(path)
		if err != nil {
			continue
		}
		switch {
		case f.name == name && found == nil:
			found = f
		case f.name != "":
			names = append(names, f.name)
		default:
			names = append(names, strings.TrimSuffix(ent.Name(), ".js"))
		}
	}
	for path := range w.files {
		if !seen[path] {
			delete(w.files, path)
		}
	}
	if found != nil {
		return found.script(name)
	}
	sort.Strings(names)
	return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): no such workflow in %s; available: %s", name, w.dir, strings.Join(names, ", "))
}

// file returns the checked script at path, checking it again only when the
// file changed. The caller holds w.mu.
func (w *workflowIndex) file(path string) (*workflowFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		delete(w.files, path)
		return nil, err
	}
	if f, ok := w.files[path]; ok && f.size == st.Size() && f.modTime.Equal(st.ModTime()) {
		return f, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &workflowFile{path: path, size: st.Size(), modTime: st.ModTime(), c: compile(path, string(src))}
	if f.c.err == nil && f.c.meta != nil {
		// A saved workflow's meta is held to the rules of any script's.
		if m, _, err := meta.Parse(f.c.meta); err != nil {
			f.c = &compiled{err: err}
		} else {
			f.name = m.Name
		}
	}
	if w.files == nil {
		w.files = make(map[string]*workflowFile)
	}
	w.files[path] = f
	return f, nil
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
