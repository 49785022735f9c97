#!/bin/sh
# Answers at once but leaves a background child holding stdout open.
cat >/dev/null
sleep 30 &
echo done
