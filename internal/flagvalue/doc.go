// Package flagvalue holds what wfrun's command line does with a
// flag.FlagSet, for wfrun and for any program that binds wfrun's flags
// onto a flag set of its own: checked values (non-empty text, repeatable
// lists, positive counts, sizes with units, positive durations, a flag
// that may be given alone or with a value), parsing with flags before and
// after the positional arguments, the help's layout of a flag, and the
// name a mistyped word most likely meant.
//
// Model: each binder defines one flag whose flag.Value checks the text as
// it is parsed, so a bad value is refused with a sentence that names the
// flag and shows a good value, rather than with the flag package's words;
// Parse rewords the flag package's own errors the same way. An empty
// value is always refused. A help text names its value in backquotes, as
// flag.UnquoteUsage reads it.
//
// It owns only parsing, checking and layout: it reads no environment, no
// file and no clock, writes to no stream, and imports nothing of wfrun's,
// so every package may use it.
package flagvalue
