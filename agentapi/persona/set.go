package persona

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// SearchDirs returns the folders personas are searched in, in order, first
// match winning: the explicit folders (--agents-dir, Config.AgentDirs),
// then WORKSPACE/.claude/agents and WORKSPACE/.wfrun/agents, then
// HOME/.claude/agents. An empty workspace or home leaves its folders out;
// a folder named twice is kept at its first place. The CLI and the engine
// both build the list with this function, so that they agree.
func SearchDirs(explicit []string, workspace, home string) []string {
	return ProjectDirs("agents", explicit, workspace, home)
}

// ProjectDirs is the search order of a Claude Code project's folders of one
// kind (sub: "agents", "workflows"), first match winning: the explicit
// folders, then WORKSPACE/.claude/SUB and WORKSPACE/.wfrun/SUB, then
// HOME/.claude/SUB. An empty workspace or home leaves its folders out; a
// folder named twice is kept at its first place. Personas and saved
// workflows are found in this one order.
func ProjectDirs(sub string, explicit []string, workspace, home string) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if strings.TrimSpace(d) == "" {
			return
		}
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range explicit {
		add(d)
	}
	if workspace != "" {
		add(filepath.Join(workspace, ".claude", sub))
		add(filepath.Join(workspace, ".wfrun", sub))
	}
	if home != "" {
		add(filepath.Join(home, ".claude", sub))
	}
	return dirs
}

// Set is the personas an engine knows: those read from its folders, then
// the built-ins not overridden by a file. It also keeps the errors met
// while loading. A Set never changes after Load, so it is safe for
// concurrent use. A nil *Set holds only the built-ins.
type Set struct {
	dirs   []string
	found  []string           // the dirs that exist
	byName map[string]Persona // every persona by its exact name
	errs   []*LoadError
	warns  []*LoadError // files that loaded with a lenient reading
}

// Load reads every persona file under dirs, searched in order (see
// SearchDirs): a name found in an earlier folder wins over the same name
// later, and any file wins over a built-in. A folder that does not exist
// is skipped. Files are the *.md files in a folder and its subfolders, read
// in path order; a file that cannot be read or parsed, and a second file
// with a name already defined in the same folder, are recorded as errors
// (Set.Errors) and the rest still load.
func Load(dirs []string) *Set {
	s := &Set{dirs: slices.Clone(dirs), byName: map[string]Persona{}}
	for _, dir := range dirs {
		s.loadDir(dir)
	}
	for _, b := range Builtins() {
		if _, ok := s.byName[b.Name]; !ok {
			s.byName[b.Name] = b
		}
	}
	return s
}

func (s *Set) loadDir(dir string) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		s.errs = append(s.errs, &LoadError{File: dir, Message: fmt.Sprintf("cannot read the agents folder: %v", err), Err: err})
		return
	case !info.IsDir():
		s.errs = append(s.errs, &LoadError{File: dir, Message: "is not a folder: an agents folder holds persona files (NAME.md)"})
		return
	}
	s.found = append(s.found, dir)
	mine := map[string]string{} // name → the file of this folder that defined it
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			s.errs = append(s.errs, &LoadError{File: path, Message: fmt.Sprintf("cannot be read: %v", err), Err: err})
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".md") || isReadme(d.Name()) {
			return nil
		}
		p, err := readFile(path)
		if err != nil {
			s.errs = append(s.errs, asLoadError(path, err))
			return nil
		}
		if first, dup := mine[p.Name]; dup {
			s.errs = append(s.errs, &LoadError{File: path, Line: 1,
				Message: fmt.Sprintf("defines the persona %q, which %s already defines; the first one is used, so rename or remove one", p.Name, first)})
			return nil
		}
		mine[p.Name] = path
		s.warns = append(s.warns, p.Warnings...)
		if _, earlier := s.byName[p.Name]; !earlier {
			s.byName[p.Name] = p
		}
		return nil
	})
	if walkErr != nil {
		s.errs = append(s.errs, &LoadError{File: dir, Message: fmt.Sprintf("cannot be read: %v", walkErr), Err: walkErr})
	}
}

// isReadme reports whether a file is the folder's README (README.md in any
// case): a page about the agents beside them, not one of them, as in
// Claude Code.
func isReadme(name string) bool {
	return strings.EqualFold(name, "README.md")
}

// readFile reads and parses one persona file, following a symlink.
func readFile(path string) (Persona, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Persona{}, err
	}
	if !info.Mode().IsRegular() {
		return Persona{}, &LoadError{File: path, Message: "is not a regular file"}
	}
	if info.Size() > MaxFileSize {
		return Persona{}, &LoadError{File: path, Message: fmt.Sprintf("is %d bytes, more than the %d a persona file may have", info.Size(), MaxFileSize)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Persona{}, err
	}
	return Parse(path, data)
}

func asLoadError(path string, err error) *LoadError {
	var le *LoadError
	if errors.As(err, &le) {
		return le
	}
	return &LoadError{File: path, Message: fmt.Sprintf("cannot be read: %v", err), Err: err}
}

// Lookup returns the persona named name. The match is exact; failing that,
// a name that differs only in case from exactly one persona finds it
// ("explore" is Explore). An unknown name is an *UnknownError.
func (s *Set) Lookup(name string) (Persona, error) {
	all := s.all()
	if p, ok := all[name]; ok {
		return p.clone(), nil
	}
	var folded []Persona
	for n, p := range all {
		if strings.EqualFold(n, name) {
			folded = append(folded, p)
		}
	}
	if len(folded) == 1 {
		return folded[0].clone(), nil
	}
	return Persona{}, &UnknownError{Name: name, Dirs: s.Dirs(), Suggestions: closest(name, s.Names()), Available: s.Names()}
}

// Personas returns every persona of the set, sorted by name.
func (s *Set) Personas() []Persona {
	all := s.all()
	out := make([]Persona, 0, len(all))
	for _, n := range s.Names() {
		out = append(out, all[n].clone())
	}
	return out
}

// Names returns the names of the set's personas, sorted.
func (s *Set) Names() []string {
	all := s.all()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Errors returns the errors met while loading, in the order they were met.
func (s *Set) Errors() []*LoadError {
	if s == nil {
		return nil
	}
	return slices.Clone(s.errs)
}

// Warnings returns what loading got past, in the order it was met: files
// whose front matter is not valid YAML and were read line by line. Each
// names the file and the line; the personas loaded.
func (s *Set) Warnings() []*LoadError {
	if s == nil {
		return nil
	}
	return slices.Clone(s.warns)
}

// Dirs returns the folders that were searched, in search order.
func (s *Set) Dirs() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.dirs)
}

// FoundDirs returns the searched folders that exist. A provider that
// accepts any persona name (the fake) refuses unknown ones when this is
// not empty, so that a dry run catches a typo.
func (s *Set) FoundDirs() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.found)
}

// all is the name → persona map; for a nil Set, the built-ins.
func (s *Set) all() map[string]Persona {
	if s != nil && s.byName != nil {
		return s.byName
	}
	m := map[string]Persona{}
	for _, b := range Builtins() {
		m[b.Name] = b
	}
	return m
}
