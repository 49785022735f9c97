// Package strictjson decodes one JSON value strictly and says what was
// wrong with the text when it does not fit, so that every reader of JSON
// that a person or a model wrote (configs, specs, tool arguments) refuses
// the same mistakes and names them the same way.
//
// Decode reads exactly one value, refusing fields the Go type does not
// have and text after the value. Explain turns the error of Decode (or of
// json.Unmarshal) into a Problem: which mistake, the field, the JSON kind
// found and, in words, what belongs there (Describe). The caller writes
// the sentence, since only it knows what the text is (the ACP config, the
// Read tool's arguments) and what to write instead.
//
// It is a leaf: it imports nothing of wfrun's, and never reads a file or
// the environment.
package strictjson
