#!/bin/sh
# Floods stdout, then lingers ignoring SIGTERM.
trap '' TERM
yes "flooding the output with a line of text" | head -c 50000000
sleep 30
