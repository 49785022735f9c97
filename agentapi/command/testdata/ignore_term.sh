#!/bin/sh
# Ignores SIGTERM (as does everything it starts), leaves a background child,
# and says it is ready by creating $READY_FILE.
trap '' TERM
sleep 30 &
touch "$READY_FILE"
sleep 30
