#!/bin/sh
# Prints JSON Lines like `claude -p --output-format stream-json`: an event,
# then the result object, whose "result" is $ANSWER_JSON.
cat >/dev/null
printf '{"type":"system","subtype":"init"}\n'
printf '{"type":"result","result":%s,"usage":{"input_tokens":120,"output_tokens":34,"cache_read_input_tokens":7},"total_cost_usd":0.25,"turns":[1,{"n":2}]}\n' "$ANSWER_JSON"
