package command

import (
	"bytes"
	"encoding/json"
	"strings"
)

// hasPlaceholder reports whether arg contains one of the placeholders.
func hasPlaceholder(arg string) bool {
	return strings.Contains(arg, "{prompt}") || strings.Contains(arg, "{model}") || strings.Contains(arg, "{schema}")
}

// expandArgv substitutes the placeholders in every argument after the
// first, in one pass per argument, so that text substituted for one
// placeholder is never scanned for another.
func expandArgv(argv []string, prompt, model, schemaText string) []string {
	r := strings.NewReplacer("{prompt}", prompt, "{model}", model, "{schema}", schemaText)
	out := make([]string, len(argv))
	out[0] = argv[0]
	for i, a := range argv[1:] {
		out[i+1] = r.Replace(a)
	}
	return out
}

// schemaInstruction is appended to the prompt of a schema call: the command
// provider honours outputSchema by asking for JSON and validating it.
const schemaInstruction = "\n\nAnswer with only a JSON value that satisfies this JSON Schema, with no other text and no code fence:\n"

// promptFor returns the text the command receives as its prompt.
func promptFor(prompt string, schemaText string) string {
	if schemaText == "" {
		return prompt
	}
	return prompt + schemaInstruction + schemaText + "\n"
}

// compactJSON returns raw without insignificant white space, or raw itself
// when it is not JSON.
func compactJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
