package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
)

// lastJSON parses stdout as JSON and returns its last value: a command that
// prints JSON Lines (a stream of events ending with the result) is read
// like one that prints a single object.
func lastJSON(stdout []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.UseNumber()
	var last any
	n := 0
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		last, n = v, n+1
	}
	if n == 0 {
		return nil, errors.New("it is empty")
	}
	return last, nil
}

// lookup follows a dotted path into a decoded JSON value. A segment of
// digits indexes an array; an empty path is v itself.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// fieldText renders the answer field: a string is the answer text itself,
// any other value its JSON text.
func fieldText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v) // decoded JSON always marshals
	return string(b)
}

// usageFrom reads the token counts and cost that f names from the decoded
// output. Counts it cannot read stay at the estimates in est; the returned
// note names them.
func usageFrom(doc any, f UsageFields, est agentapi.Usage) (agentapi.Usage, string) {
	u := est
	var missing []string
	count := func(path string, dst *int64) {
		if path == "" {
			return
		}
		v, ok := lookup(doc, path)
		n, isNum := v.(json.Number)
		if !ok || !isNum {
			missing = append(missing, path)
			return
		}
		if i, err := n.Int64(); err == nil && i >= 0 {
			*dst = i
			return
		}
		if x, err := n.Float64(); err == nil && x >= 0 && x == math.Trunc(x) && x <= math.MaxInt64 {
			*dst = int64(x)
			return
		}
		missing = append(missing, path)
	}
	count(f.InputTokens, &u.InputTokens)
	count(f.OutputTokens, &u.OutputTokens)
	count(f.CachedTokens, &u.CachedTokens)
	if f.CostUSD != "" {
		v, ok := lookup(doc, f.CostUSD)
		n, isNum := v.(json.Number)
		x, err := n.Float64()
		if ok && isNum && err == nil && x >= 0 {
			u.CostUSD = x
		} else {
			missing = append(missing, f.CostUSD)
		}
	}
	if len(missing) == 0 {
		return u, ""
	}
	return u, fmt.Sprintf("the output has no usable number at %s; usage there is estimated (tokens) or 0 (cost)", strings.Join(missing, ", "))
}

// excerpt shortens s for an error message.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// tokens is the estimated token count of n bytes: ceil(n/4), as the fake
// provider counts.
func tokens(n int) int64 { return int64(n+3) / 4 }
