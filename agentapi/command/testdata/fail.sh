#!/bin/sh
# Fails with status 3 after more than 4 KiB of stderr; the reason comes last.
cat >/dev/null
i=0
while [ $i -lt 200 ]; do echo "noise line $i of a chatty failing command" >&2; i=$((i+1)); done
echo "error: the real reason is at the end" >&2
exit 3
