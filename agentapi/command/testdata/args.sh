#!/bin/sh
# Answers with its arguments, one per line, and an empty stdin check.
for a in "$@"; do printf '[%s]\n' "$a"; done
if [ -n "$(cat)" ]; then echo "stdin was not empty" >&2; exit 4; fi
