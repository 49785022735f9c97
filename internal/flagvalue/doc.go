// Package flagvalue holds the checked flag values of wfrun's command line
// and of any program that binds wfrun's flags onto its own flag.FlagSet:
// non-empty text, repeatable lists, positive counts, sizes with units,
// positive durations, and a flag that may be given alone or with a value.
//
// Model: each binder defines one flag whose flag.Value checks the text as
// it is parsed, so a bad value is refused with a sentence that names the
// flag and shows a good value, rather than with the flag package's words.
// An empty value is always refused. A help text names its value in
// backquotes, as flag.UnquoteUsage reads it.
//
// It owns only parsing and checking: it reads no environment, no file and
// no clock, and imports nothing of wfrun's, so every package may use it.
package flagvalue
