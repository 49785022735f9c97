// Package llamaserver starts llama.cpp's own llama-server on loopback for
// the long suite that tests wfrun against it, serving a tiny model the
// package generates.
//
// # The model
//
// The server is the one scripts/llama-server.sh builds from the llama.cpp
// source that the npm package node-llama-cpp ships; the tests find it
// through WFRUN_LLAMA_SERVER (the binary), WFRUN_LLAMA_VOCAB (a
// vocabulary-only GGUF of the same source, which gives the tokenizer) and
// WFRUN_LLAMA_TEMPLATE (a Jinja chat template of the same source), and
// skip without them. WriteModel generates the model in the test's
// temporary folder: a llama-architecture network of one small block with
// seeded random weights, the vocabulary file's tokenizer and the chat
// template. Its answers are noise, but everything around them is the real
// server's: tokenization, the chat template, tool-call parsing, grammars
// for response_format and tool_choice "required", context limits, error
// bodies and usage counters. Nothing is downloaded and the model is never
// written inside the repository.
//
// # What it owns and must never do
//
// Start owns the llama-server process it starts, listening on 127.0.0.1
// only, and stops it when the test ends (the test's cleanup waits for it).
// It never starts anything else, never kills a process it did not start,
// and never touches the network beyond loopback.
package llamaserver
