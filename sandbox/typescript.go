package sandbox

import (
	"sort"
	"strings"
)

// explain looks at the tokens around a parse error (off: byte offset in the
// user's source) and, when it recognises a dialect the engine does not run —
// modules, TypeScript, for await, async generators — returns a sentence that
// says what to write instead, and the position of the construct (line 0:
// keep goja's position). It reads tokens, never raw text, so comments and
// strings that mention `import` cannot trigger it.
func (s *Script) explain(msg string, off int, toks []token) (hint string, line, col int) {
	// i: the first token at or after the error.
	i := sort.Search(len(toks), func(k int) bool { return toks[k].end > off })
	at := func(k int) token {
		if k >= 0 && k < len(toks) {
			return toks[k]
		}
		return token{}
	}
	pos := func(k int) (int, int) { return s.lines.pos(at(k).start) }
	word := func(k int, w ...string) bool {
		t := at(k)
		if t.kind != tokWord {
			return false
		}
		for _, x := range w {
			if t.text == x {
				return true
			}
		}
		return false
	}

	if strings.Contains(msg, "Async generators are not supported") {
		// Point at the `async` or `function*` that starts it.
		l, c := s.lines.pos(off)
		return "async generators are not supported: return an array (build it with a loop and push), " +
			"or write a plain function that returns Promise.all(list)", l, c
	}
	if word(i, "await") && word(i-1, "for") {
		l, c := pos(i - 1)
		return "for await is not supported: collect the promises and use `for (const x of await Promise.all(list))`", l, c
	}
	if word(i, "import") {
		l, c := pos(i)
		return "modules are not available in a workflow script (`import`): ask an agent to read files, or pass data in args", l, c
	}
	if word(i, "export") {
		l, c := pos(i)
		if word(i+1, "const") && word(i+2, "meta") {
			return "`export const meta = {…}` must be the first statement of the script: move it to the top", l, c
		}
		return "only `export const meta = {…}` may be exported; remove `export`", l, c
	}
	if ts, k := tsConstruct(toks, i); ts != "" {
		l, c := pos(k)
		return "TypeScript is not supported: this is plain JavaScript; " + ts, l, c
	}
	return "", 0, 0
}

// tsConstruct names the TypeScript construct at or just before toks[i] and
// the index of its first token, or returns "".
func tsConstruct(toks []token, i int) (string, int) {
	at := func(k int) token {
		if k >= 0 && k < len(toks) {
			return toks[k]
		}
		return token{}
	}
	is := func(k int, kind tokKind, texts ...string) bool {
		t := at(k)
		if t.kind != kind {
			return false
		}
		for _, x := range texts {
			if t.text == x {
				return true
			}
		}
		return len(texts) == 0
	}
	cur := at(i)
	switch {
	case is(i, tokPunct, ":") && (is(i-1, tokWord) || is(i-1, tokPunct, ")", "]", "}")):
		return "remove the type annotation `" + typeText(toks, i) + "`", i
	case is(i, tokPunct, "?") && is(i+1, tokPunct, ":"):
		return "remove the optional-parameter type `?" + typeText(toks, i+1) + "`", i
	case is(i, tokWord, "as", "satisfies") && (is(i-1, tokWord) || is(i-1, tokPunct, ")", "]", "}") || is(i-1, tokString) || is(i-1, tokNumber)):
		return "remove the type assertion `" + cur.text + " " + strings.TrimPrefix(typeText(toks, i), ": ") + "`", i
	case is(i, tokPunct, "!") && is(i+1, tokPunct, ".", "[", "?."):
		return "remove the non-null assertion `!` (use `?.` if the value may be missing)", i
	case is(i, tokWord, "enum"):
		return "replace the enum with a frozen object: `const Color = Object.freeze({ Red: 'red' })`", i
	case is(i-1, tokWord, "interface") && is(i, tokWord):
		return "remove the interface declaration `interface " + cur.text + "`", i - 1
	case is(i-1, tokWord, "type") && is(i, tokWord) && (is(i+1, tokPunct, "=") || is(i+1, tokPunct, "<")):
		return "remove the type alias `type " + cur.text + " = …`", i - 1
	case is(i-1, tokWord, "private", "public", "protected", "readonly", "declare", "abstract", "namespace") && is(i, tokWord):
		return "remove the modifier `" + at(i-1).text + "`", i - 1
	case is(i, tokWord, "implements") && is(i+1, tokWord):
		return "remove `implements " + at(i+1).text + "`", i
	}
	// Generics: `f<T>(…)`, `new Map<string, number>()`, `<T>(x) => …`.
	for k := i; k >= 0 && k > i-8; k-- {
		if is(k, tokPunct, "<") && (k == 0 || is(k-1, tokWord) || is(k-1, tokPunct, "=", "(", ",")) {
			j := k + 1
			for j < len(toks) && j < k+12 && (is(j, tokWord) || is(j, tokPunct, ",", "[", "]", "|", "&", ".")) {
				j++
			}
			if j > k+1 && is(j, tokPunct, ">") && j >= i-1 {
				var b strings.Builder
				for m := k; m <= j; m++ {
					if m > k && toks[m].start > toks[m-1].end {
						b.WriteByte(' ')
					}
					b.WriteString(toks[m].text)
				}
				return "remove the type parameters `" + b.String() + "`", k
			}
		}
	}
	return "", 0
}

// typeText renders the annotation that starts at the `:` toks[i]: the tokens
// up to the next `=`, `,`, `)`, `;`, `{` (outside brackets) or line end.
func typeText(toks []token, i int) string {
	var b strings.Builder
	b.WriteString(": ")
	depth := 0
	for k := i + 1; k < len(toks) && k < i+16; k++ {
		t := toks[k]
		if k > i+1 && t.nl && depth == 0 {
			break
		}
		if t.kind == tokPunct {
			switch t.text {
			case "<", "(", "[":
				depth++
			case ">", "]":
				depth--
			case ")":
				if depth == 0 {
					return strings.TrimSpace(b.String())
				}
				depth--
			case "=", ",", ";", "{", "=>":
				if depth <= 0 && !(t.text == "{" && k == i+1) {
					return strings.TrimSpace(b.String())
				}
			}
		}
		if k > i+1 && t.start > toks[k-1].end {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return strings.TrimSpace(b.String())
}
