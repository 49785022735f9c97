#!/bin/sh
# Prints what it sees of its environment and working directory.
printf 'secret=%s passed=%s added=%s home=%s dir=%s\n' "$WFRUN_CMD_SECRET" "$WFRUN_CMD_PASSED" "$WFRUN_CMD_ADDED" "${HOME:+set}" "$(pwd)"
