#!/bin/sh
# Answers with its standard input: the prompt, when promptVia is "stdin".
exec cat
