package persona

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// ErrUnknown is matched by every *UnknownError (errors.Is).
var ErrUnknown = errors.New("unknown persona")

// UnknownError is a persona name that no folder and no built-in defines.
// Its sentence suits an UNSUPPORTED_OPTION message: it names the folders
// searched and the closest names.
type UnknownError struct {
	Name        string
	Dirs        []string // the folders searched, in order
	Suggestions []string // the closest available names, best first
	Available   []string // every available name, sorted
}

// maxListed is how many available names the sentence lists.
const maxListed = 12

func (e *UnknownError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no persona is named %q: ", e.Name)
	if len(e.Dirs) == 0 {
		b.WriteString("no agents folder was searched, and it is not a built-in")
	} else {
		fmt.Fprintf(&b, "wfrun searched %s and the built-ins", strings.Join(e.Dirs, ", "))
	}
	if len(e.Suggestions) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", quoteList(e.Suggestions, " or "))
	} else {
		b.WriteString(".")
	}
	avail := e.Available
	more := ""
	if len(avail) > maxListed {
		more = fmt.Sprintf(" and %d more", len(avail)-maxListed)
		avail = avail[:maxListed]
	}
	fmt.Fprintf(&b, " Use one of %s%s, or add a file NAME.md with name: %s in its front matter to one of those folders", quoteList(avail, ", "), more, e.Name)
	return b.String()
}

// Is makes errors.Is(err, ErrUnknown) true.
func (e *UnknownError) Is(target error) bool { return target == ErrUnknown }

func quoteList(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

// maxSuggestions is how many close names an UnknownError offers.
const maxSuggestions = 3

// closest returns the names nearest to name, best first: those within an
// edit distance of a third of the name's length (at least 2), compared
// without case, and those that contain it or that it contains.
func closest(name string, names []string) []string {
	type cand struct {
		name string
		dist int
	}
	low := strings.ToLower(name)
	limit := max(2, len([]rune(name))/3)
	var cands []cand
	for _, n := range names {
		ln := strings.ToLower(n)
		d := levenshtein.ComputeDistance(low, ln)
		if d > limit && !(low != "" && (strings.Contains(ln, low) || strings.Contains(low, ln))) {
			continue
		}
		cands = append(cands, cand{n, d})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for _, c := range cands {
		if len(out) == maxSuggestions {
			break
		}
		out = append(out, c.name)
	}
	return out
}
