package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/sandbox"
)

var workflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// workflowLoader resolves workflow(name) in Config.WorkflowsDir: first
// NAME.js, then the .js file whose static meta has that name. It returns nil
// when no folder is configured.
func (e *Engine) workflowLoader() func(string) (*sandbox.Script, error) {
	dir := e.cfg.WorkflowsDir
	if dir == "" {
		return nil
	}
	return func(name string) (*sandbox.Script, error) {
		if !workflowName.MatchString(name) {
			return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): a workflow name is 1–64 letters, digits, '.', '-' or '_'", name)
		}
		path := filepath.Join(dir, name+".js")
		if src, err := os.ReadFile(path); err == nil {
			return e.loadWorkflowFile(path, string(src))
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): cannot read the workflows folder %s: %v", name, dir, err)
		}
		var names []string
		for _, ent := range entries {
			if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".js") {
				continue
			}
			p := filepath.Join(dir, ent.Name())
			src, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			cs := e.cache.get(p, string(src))
			if cs.err != nil || cs.meta == nil {
				names = append(names, strings.TrimSuffix(ent.Name(), ".js"))
				continue
			}
			m, _, err := meta.Parse(cs.meta)
			if err == nil && m.Name == name {
				return cs.script, nil
			}
			if err == nil {
				names = append(names, m.Name)
			}
		}
		sort.Strings(names)
		return nil, wferr.New(wferr.InvalidArgument, "workflow(%q): no such workflow in %s; available: %s", name, dir, strings.Join(names, ", "))
	}
}

func (e *Engine) loadWorkflowFile(path, src string) (*sandbox.Script, error) {
	cs := e.cache.get(path, src)
	if cs.err != nil {
		return nil, fmt.Errorf("the saved workflow %s does not pass its checks: %w", filepath.Base(path), cs.err)
	}
	return cs.script, nil
}
