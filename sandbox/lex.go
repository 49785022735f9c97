package sandbox

// A small JavaScript tokenizer. It exists for the checks that must run before
// (or instead of) goja's parser: finding a leading `export const meta =`,
// bounding nesting depth so that the recursive parser cannot be driven into a
// huge stack, and naming what went wrong near a parse error (TypeScript,
// modules). It never decides whether a script is valid — goja's parser does —
// so where JavaScript is ambiguous (a `/` after `)` or `}`) it guesses, and a
// wrong guess costs at most the rest of one line.

type tokKind uint8

const (
	tokWord     tokKind = iota + 1 // identifier or keyword
	tokPunct                       // operator or bracket; text is the operator
	tokString                      // '…' or "…"
	tokTemplate                    // a template chunk: `…` , `…${, }…${ or }…`
	tokRegexp                      // /…/flags
	tokNumber                      // numeric literal
	tokPrivate                     // #name
)

type token struct {
	kind       tokKind
	start, end int    // byte offsets in the source
	text       string // the token's source text (for strings, templates and regexps: the whole literal)
	nl         bool   // a line terminator precedes the token
}

// lexer scans src into tokens. Comments and whitespace are skipped; errors
// (an unterminated string, a stray character) never stop it: goja reports
// those properly.
type lexer struct {
	src    string
	pos    int
	braces []bool // one entry per open `{` or `${`: true for `${`
	prev   *token // last significant token, for the regexp-or-division guess
	nl     bool
}

func newLexer(src string) *lexer { return &lexer{src: src} }

// next returns the next token, or ok=false at the end of the source.
func (l *lexer) next() (t token, ok bool) {
	l.skipSpace()
	if l.pos >= len(l.src) {
		return token{}, false
	}
	start := l.pos
	c := l.src[l.pos]
	t = token{start: start, nl: l.nl}
	l.nl = false
	switch {
	case isIdentStart(c):
		l.pos++
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		t.kind = tokWord
	case c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(l.src) && l.src[l.pos+1] >= '0' && l.src[l.pos+1] <= '9':
		l.pos++
		for l.pos < len(l.src) && (isIdentPart(l.src[l.pos]) || l.src[l.pos] == '.' ||
			(l.src[l.pos] == '+' || l.src[l.pos] == '-') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E')) {
			l.pos++
		}
		t.kind = tokNumber
	case c == '\'' || c == '"':
		l.pos++
		for l.pos < len(l.src) && l.src[l.pos] != c && l.src[l.pos] != '\n' {
			if l.src[l.pos] == '\\' {
				l.pos++
			}
			l.pos++
		}
		if l.pos < len(l.src) && l.src[l.pos] == c {
			l.pos++
		}
		t.kind = tokString
	case c == '`':
		l.pos++
		l.scanTemplate()
		t.kind = tokTemplate
	case c == '}' && len(l.braces) > 0 && l.braces[len(l.braces)-1]:
		l.braces = l.braces[:len(l.braces)-1]
		l.pos++
		l.scanTemplate()
		t.kind = tokTemplate
	case c == '#':
		l.pos++
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		t.kind = tokPrivate
	case c == '/' && l.regexpAllowed():
		if l.scanRegexp() {
			t.kind = tokRegexp
		} else {
			l.pos = start + 1
			t.kind = tokPunct
		}
	default:
		l.pos += punctLen(l.src[l.pos:])
		t.kind = tokPunct
		switch c {
		case '{':
			l.braces = append(l.braces, false)
		case '}':
			if len(l.braces) > 0 {
				l.braces = l.braces[:len(l.braces)-1]
			}
		}
	}
	if l.pos > len(l.src) {
		l.pos = len(l.src)
	}
	t.end = l.pos
	t.text = l.src[start:l.pos]
	l.prev = &t
	return t, true
}

// skipSpace skips whitespace and comments. A leading #! line is blanked
// before tokenizing (see blankPrelude).
func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n' || c == '\r':
			l.nl = true
			l.pos++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			l.pos++
		case c >= 0x80 && unicodeSpaceLen(l.src[l.pos:]) > 0:
			l.pos += unicodeSpaceLen(l.src[l.pos:])
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			l.pos += 2
			for l.pos < len(l.src) && !(l.src[l.pos] == '*' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/') {
				if l.src[l.pos] == '\n' {
					l.nl = true
				}
				l.pos++
			}
			l.pos += 2
			if l.pos > len(l.src) {
				l.pos = len(l.src)
			}
		default:
			return
		}
	}
}

// unicodeSpaceLen returns the length of the non-ASCII space or line
// terminator (U+00A0, U+FEFF, U+2000–U+200A, U+2028/9, U+3000) s starts
// with, or 0. A miss makes the character part of an identifier, which is
// harmless here.
func unicodeSpaceLen(s string) int {
	if len(s) >= 2 && s[:2] == "\u00A0" {
		return 2
	}
	if len(s) >= 3 && (s[:3] == "\uFEFF" || s[:3] == "\u2028" || s[:3] == "\u2029" || s[:3] == "\u3000" ||
		s[0] == 0xE2 && s[1] == 0x80 && s[2] >= 0x80 && s[2] <= 0x8A) {
		return 3
	}
	return 0
}

func (l *lexer) scanTemplate() {
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case '\\':
			l.pos += 2
		case '`':
			l.pos++
			return
		case '$':
			if l.pos+1 < len(l.src) && l.src[l.pos+1] == '{' {
				l.pos += 2
				l.braces = append(l.braces, true)
				return
			}
			l.pos++
		default:
			l.pos++
		}
	}
}

// scanRegexp scans a regexp literal starting at the `/` at l.pos; it reports
// false (and leaves l.pos unspecified) when the line ends first.
func (l *lexer) scanRegexp() bool {
	l.pos++
	inClass := false
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; c {
		case '\n', '\r':
			return false
		case '\\':
			l.pos += 2
			continue
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				l.pos++
				for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
					l.pos++
				}
				return true
			}
		}
		l.pos++
	}
	return false
}

// regexpAllowed guesses whether a `/` here starts a regexp literal.
func (l *lexer) regexpAllowed() bool {
	p := l.prev
	if p == nil {
		return true
	}
	switch p.kind {
	case tokNumber, tokString, tokRegexp, tokPrivate:
		return false
	case tokTemplate:
		return p.text[len(p.text)-1] != '`'
	case tokWord:
		switch p.text {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await":
			return true
		}
		return false
	}
	switch p.text {
	case ")", "]", "}", "++", "--":
		return false
	}
	return true
}

var puncts = []string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=",
	"&=", "|=", "^=", "<<", ">>", "**",
}

func punctLen(s string) int {
	for _, p := range puncts {
		if len(s) >= len(p) && s[:len(p)] == p {
			if p == "?." && len(s) > 2 && s[2] >= '0' && s[2] <= '9' {
				continue // a ? .5 : b
			}
			return len(p)
		}
	}
	if s[0] >= 0x80 {
		return utf8Len(s[0])
	}
	return 1
}

func utf8Len(b byte) int {
	switch {
	case b >= 0xF0:
		return 4
	case b >= 0xE0:
		return 3
	case b >= 0xC0:
		return 2
	}
	return 1
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '\\' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// tokenize returns every token of src.
func tokenize(src string) []token {
	l := newLexer(src)
	var toks []token
	for {
		t, ok := l.next()
		if !ok {
			return toks
		}
		toks = append(toks, t)
	}
}
