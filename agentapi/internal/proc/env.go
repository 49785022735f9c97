package proc

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// inherited are the variables of wfrun's environment that a child process
// gets when they are set: what a command needs to find programs, its
// configuration and its locale, and to reach the network through a proxy.
// Nothing else (API keys included) is passed unless a caller names it.
var inherited = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
}

// InheritedEnv returns the names of the variables a child inherits from
// wfrun's environment when they are set.
func InheritedEnv() []string { return append([]string(nil), inherited...) }

// Environ builds a minimal environment: the inherited variables that are
// set, then those named in pass that are set, then set, later ones
// winning; each name appears once, in the order of its first appearance
// (set's own names in sorted order, so that the result is deterministic).
func Environ(pass []string, set map[string]string) []string {
	vals := make(map[string]string)
	var order []string
	put := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, names := range [][]string{inherited, pass} {
		for _, k := range names {
			if v, ok := os.LookupEnv(k); ok {
				put(k, v)
			}
		}
	}
	for _, k := range sortedKeys(set) {
		put(k, set[k])
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	return env
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// ValidName reports whether k can name an environment variable: it is not
// empty and holds no '=' or NUL, which no environment entry can carry.
func ValidName(k string) bool { return k != "" && !strings.ContainsAny(k, "=\x00") }
