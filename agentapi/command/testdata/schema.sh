#!/bin/sh
# Answers $ANSWER if the prompt carries the schema instruction.
prompt=$(cat)
case "$prompt" in
*"satisfies this JSON Schema"*'"required":["answer"]'*) printf '%s\n' "$ANSWER" ;;
*) echo "the prompt has no schema instruction: $prompt" >&2; exit 3 ;;
esac
