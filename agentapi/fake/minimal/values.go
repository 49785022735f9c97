package minimal

import (
	"encoding/json"
	"math/big"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// formatExamples are fixed valid values for the formats the validator
// asserts, shortest first where it matters.
var formatExamples = map[string]string{
	"date-time":             "1970-01-01T00:00:00Z",
	"date":                  "1970-01-01",
	"time":                  "00:00:00Z",
	"duration":              "P1D",
	"period":                "1970-01-01T00:00:00Z/P1D",
	"email":                 "user@example.com",
	"idn-email":             "user@example.com",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "127.0.0.1",
	"ipv6":                  "::1",
	"uri":                   "https://example.com",
	"uri-reference":         "https://example.com",
	"iri":                   "https://example.com",
	"iri-reference":         "https://example.com",
	"uri-template":          "https://example.com",
	"uuid":                  "00000000-0000-0000-0000-000000000000",
	"json-pointer":          "",
	"relative-json-pointer": "0",
	"regex":                 "",
	"semver":                "0.0.0",
}

// minString is "" or minLength 'a's; a known format gives its example and a
// pattern a generated match.
func minString(o *object) any {
	minLen := intOf(o.vals["minLength"])
	maxLen := -1
	if _, ok := o.vals["maxLength"]; ok {
		maxLen = intOf(o.vals["maxLength"])
	}
	if p, ok := o.vals["pattern"].(string); ok {
		if s, ok := fromPattern(p, minLen, maxLen); ok {
			return s
		}
	}
	if f, ok := o.vals["format"].(string); ok {
		if ex, ok := formatExamples[f]; ok && utf8.RuneCountInString(ex) >= minLen {
			return ex
		}
	}
	return strings.Repeat("a", min(minLen, 1<<16))
}

// minNumber is 0 when 0 is allowed, else the allowed number nearest to 0,
// respecting minimum, maximum (inclusive and exclusive, in all drafts),
// multipleOf and integer.
func minNumber(o *object, integer bool) json.Number {
	lo, loExcl, hasLo := bound(o, "minimum", "exclusiveMinimum", true)
	hi, hiExcl, hasHi := bound(o, "maximum", "exclusiveMaximum", false)
	step, _ := ratOf(o.vals["multipleOf"])
	if step != nil && step.Sign() <= 0 {
		step = nil
	}
	zero := new(big.Rat)
	var v *big.Rat
	switch {
	case hasLo && (lo.Cmp(zero) > 0 || (lo.Sign() == 0 && loExcl)):
		v = upFrom(lo, loExcl, hi, hasHi, hiExcl, step, integer)
	case hasHi && (hi.Cmp(zero) < 0 || (hi.Sign() == 0 && hiExcl)):
		// Mirror the problem: the largest allowed value below hi is minus
		// the smallest above -hi.
		nlo := new(big.Rat).Neg(hi)
		var nhi *big.Rat
		if hasLo {
			nhi = new(big.Rat).Neg(lo)
		}
		v = upFrom(nlo, hiExcl, nhi, hasLo, loExcl, step, integer)
		v.Neg(v)
	default:
		v = zero
	}
	return ratNumber(v)
}

// bound reads a lower (or upper) bound: the plain keyword, and the
// exclusive one as a number (draft 6+) or as a boolean modifier (draft 4).
func bound(o *object, plain, exclusive string, lower bool) (*big.Rat, bool, bool) {
	p, hasP := ratOf(o.vals[plain])
	if b, ok := o.vals[exclusive].(bool); ok {
		return p, b && hasP, hasP
	}
	e, hasE := ratOf(o.vals[exclusive])
	switch {
	case hasP && hasE:
		tighter := e.Cmp(p) >= 0
		if !lower {
			tighter = e.Cmp(p) <= 0
		}
		if tighter {
			return e, true, true
		}
		return p, false, true
	case hasE:
		return e, true, true
	}
	return p, false, hasP
}

// upFrom returns the smallest allowed value at or above lo (above, when
// excl), below the upper bound when there is one.
func upFrom(lo *big.Rat, excl bool, hi *big.Rat, hasHi, hiExcl bool, step *big.Rat, integer bool) *big.Rat {
	one := big.NewRat(1, 1)
	switch {
	case step != nil:
		k := ceilRat(new(big.Rat).Quo(lo, step))
		v := new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
		for range 1000 {
			if (!excl || v.Cmp(lo) > 0) && (!integer || v.IsInt()) {
				break
			}
			v.Add(v, step)
		}
		return v
	case integer:
		v := new(big.Rat).SetInt(ceilRat(lo))
		if excl && v.Cmp(lo) == 0 {
			v.Add(v, one)
		}
		return v
	case !excl:
		return new(big.Rat).Set(lo)
	}
	v := new(big.Rat).Add(lo, one)
	if hasHi && (v.Cmp(hi) > 0 || (hiExcl && v.Cmp(hi) == 0)) {
		v.Add(lo, hi)
		v.Quo(v, big.NewRat(2, 1))
	}
	return v
}

func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1)) // DivMod floors (Euclidean, positive denominator)
	}
	return q
}

// ratNumber writes r as a JSON number, exactly when it has a finite
// decimal expansion.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	if prec, exact := r.FloatPrec(); exact {
		return json.Number(r.FloatString(prec))
	}
	f, _ := r.Float64()
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

func compileRE(p string) (*regexp.Regexp, error) { return regexp.Compile(p) }

// fromPattern generates a short string that the RE2 pattern p finds, with
// between minLen and maxLen (-1: any) characters. It lengthens the string
// by repeating starred and plussed parts.
func fromPattern(p string, minLen, maxLen int) (string, bool) {
	re, err := regexp.Compile(p)
	if err != nil {
		return "", false
	}
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", false
	}
	tree = tree.Simplify()
	for extra := 0; extra <= minLen && extra <= 256; extra++ {
		var b strings.Builder
		if !writeMatch(&b, tree, extra) {
			return "", false
		}
		s := b.String()
		n := utf8.RuneCountInString(s)
		if maxLen >= 0 && n > maxLen {
			return "", false
		}
		if n >= minLen && re.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// writeMatch writes a string matching re, repeating each star or plus
// `extra` more times than its minimum.
func writeMatch(b *strings.Builder, re *syntax.Regexp, extra int) bool {
	if b.Len() > 1<<16 {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		r := re.Rune[0]
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= 'a' && 'a' <= re.Rune[i+1] {
				r = 'a'
				break
			}
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return writeMatch(b, re.Sub[0], extra)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		n := 0
		switch re.Op {
		case syntax.OpStar:
			n = extra
		case syntax.OpPlus:
			n = 1 + extra
		case syntax.OpQuest:
			n = min(extra, 1)
		case syntax.OpRepeat:
			n = re.Min
			if re.Max < 0 {
				n += extra
			} else {
				n = min(re.Min+extra, re.Max)
			}
		}
		for range n {
			if !writeMatch(b, re.Sub[0], extra) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !writeMatch(b, s, extra) {
				return false
			}
		}
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			var t strings.Builder
			t.WriteString(b.String())
			if writeMatch(&t, s, extra) {
				b.Reset()
				b.WriteString(t.String())
				return true
			}
		}
		return false
	}
	return true // empty match, anchors and word boundaries write nothing
}
