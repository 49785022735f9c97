package tools

import (
	"maps"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes are Grep's type filters: the common ones of ripgrep's --type
// list, each a set of file-name globs.
func fileTypes() map[string][]string {
	return map[string][]string{
		"c":        {"*.c", "*.h"},
		"cpp":      {"*.cpp", "*.cc", "*.cxx", "*.c++", "*.hpp", "*.hh", "*.hxx", "*.h++", "*.h", "*.inl"},
		"cs":       {"*.cs", "*.csx"},
		"css":      {"*.css", "*.scss", "*.sass", "*.less"},
		"dart":     {"*.dart"},
		"docker":   {"Dockerfile", "*.Dockerfile", "*.dockerfile", "Containerfile"},
		"elixir":   {"*.ex", "*.exs", "*.eex", "*.heex"},
		"erlang":   {"*.erl", "*.hrl"},
		"go":       {"*.go"},
		"haskell":  {"*.hs", "*.lhs"},
		"html":     {"*.html", "*.htm", "*.xhtml"},
		"java":     {"*.java", "*.jsp"},
		"js":       {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
		"json":     {"*.json", "*.jsonl", "*.ndjson", "*.json5"},
		"kotlin":   {"*.kt", "*.kts"},
		"lua":      {"*.lua"},
		"make":     {"Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"},
		"markdown": {"*.md", "*.markdown", "*.mdx"},
		"md":       {"*.md", "*.markdown", "*.mdx"},
		"ocaml":    {"*.ml", "*.mli"},
		"perl":     {"*.pl", "*.pm", "*.t"},
		"php":      {"*.php", "*.phtml"},
		"proto":    {"*.proto"},
		"py":       {"*.py", "*.pyi"},
		"python":   {"*.py", "*.pyi"},
		"r":        {"*.R", "*.r", "*.Rmd"},
		"ruby":     {"*.rb", "*.rake", "*.gemspec", "Gemfile", "Rakefile"},
		"rust":     {"*.rs"},
		"scala":    {"*.scala", "*.sc", "*.sbt"},
		"sh":       {"*.sh", "*.bash", "*.zsh", "*.ksh", ".bashrc", ".zshrc", ".profile"},
		"sql":      {"*.sql"},
		"swift":    {"*.swift"},
		"toml":     {"*.toml"},
		"ts":       {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"tsx":      {"*.tsx"},
		"txt":      {"*.txt"},
		"vue":      {"*.vue"},
		"xml":      {"*.xml", "*.xsd", "*.xsl", "*.xslt", "*.svg"},
		"yaml":     {"*.yaml", "*.yml"},
		"zig":      {"*.zig"},
	}
}

// typeNames lists the known types, sorted.
func typeNames() string { return strings.Join(slices.Sorted(maps.Keys(fileTypes())), ", ") }

// hasType reports whether the file name matches one of the globs of type t.
func hasType(globs []string, name string) bool {
	for _, g := range globs {
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}
