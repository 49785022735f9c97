package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
)

// FuzzParse: Parse never panics or hangs, and every error is SCRIPT_PARSE
// with a line >= 1 whenever it has a position.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/shared/*.js")
	bad, _ := filepath.Glob("../testdata/shared/bad/*.js")
	for _, p := range append(files, bad...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"})(); evil(); (async () => {", "const n: number = 3", "return /[^\\p{L}\\p{N}]+/gu", "`${`${", "/*", "'",
		"for await (const x of y) {}", "export default 1", "return /[/", "#!x\n}", "a?.b!.c", "<T>(x) => x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Parse("fuzz.js", src)
		if err == nil {
			return
		}
		var we *wferr.Error
		if !errors.As(err, &we) || we.Code != wferr.ScriptParse {
			t.Fatalf("Parse(%q) = %v, want SCRIPT_PARSE", src, err)
		}
		if (we.Line != 0 || we.Column != 0) && (we.Line < 1 || we.Column < 1) {
			t.Fatalf("Parse(%q): position %d:%d", src, we.Line, we.Column)
		}
	})
}
