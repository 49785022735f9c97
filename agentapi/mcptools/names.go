package mcptools

import "strconv"

// MaxNameLen is the longest tool name model APIs accept.
const MaxNameLen = 64

// toolName is the name the model sees for tool on server:
// "mcp__" + clean(server) + "__" + clean(tool), cut to MaxNameLen bytes.
// taken holds the names given out so far; on a collision the name gets a
// suffix "_2", "_3", … (cut further so that it still fits), and the first
// tool keeps the plain name. Servers are named in sorted order and tools in
// the order their server lists them, so the names are stable across runs.
func toolName(server, tool string, taken map[string]bool) string {
	base := "mcp__" + clean(server) + "__" + clean(tool)
	base = base[:min(len(base), MaxNameLen)]
	name := base
	for i := 2; taken[name]; i++ {
		suffix := "_" + strconv.Itoa(i)
		name = base[:min(len(base), MaxNameLen-len(suffix))] + suffix
	}
	taken[name] = true
	return name
}

// clean replaces every character outside [A-Za-z0-9_-] with '_' (one per
// character, not per byte), so the result is ASCII.
func clean(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			out = append(out, byte(r))
		default:
			out = append(out, '_')
		}
	}
	return string(out)
}
