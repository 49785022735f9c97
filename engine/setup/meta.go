package setup

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
)

// maxMetaName is the longest meta name (docs/script-api.md, "Meta").
const maxMetaName = 64

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileMeta is the meta the command line gives a script file that has
// none, as the request's FallbackMeta: named after the file (without its
// extension, characters a name may not hold replaced by "-", at most 64;
// "workflow" when nothing is left), described as run from the command
// line. Scripts in the DSH dialect carry no `export const meta`.
func FileMeta(scriptName string) json.RawMessage {
	name := strings.TrimSuffix(scriptName, filepath.Ext(scriptName))
	name = strings.Trim(notNameChar.ReplaceAllString(name, "-"), "-")
	if len(name) > maxMetaName {
		name = name[:maxMetaName]
	}
	if name == "" {
		name = "workflow"
	}
	raw, _ := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{name, scriptName + " run from the command line"})
	return raw
}
