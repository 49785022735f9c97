package meta

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wfrun/wfrun/internal/wferr"
)

// Merge combines meta given as data in the request with meta found in the
// script. Either may be nil, empty or JSON null, meaning absent.
//
// Both absent gives (nil, nil); one present gives that one, unchecked (Parse
// checks it). Both present must be the same JSON value — object key order
// does not matter and numbers compare by value — and Merge then returns the
// script's. Otherwise the error, META_INVALID, names each top-level field
// that differs.
func Merge(fromRequest, fromScript json.RawMessage) (json.RawMessage, error) {
	reqAbsent, scriptAbsent := absent(fromRequest), absent(fromScript)
	switch {
	case reqAbsent && scriptAbsent:
		return nil, nil
	case scriptAbsent:
		return fromRequest, nil
	case reqAbsent:
		return fromScript, nil
	}
	req, err := decodeJSON(fromRequest)
	if err != nil {
		return nil, wferr.Wrap(wferr.MetaInvalid, err, "meta in the request is not valid JSON (%v); fix it, or pass meta in the script only", err)
	}
	script, err := decodeJSON(fromScript)
	if err != nil {
		return nil, wferr.Wrap(wferr.MetaInvalid, err, "meta in the script is not valid JSON (%v); fix it, or pass meta in the request only", err)
	}
	if req.equal(script) {
		return fromScript, nil
	}
	const fix = "pass meta in one place only, or make them equal"
	if req.kind != kindObject || script.kind != kindObject {
		return nil, wferr.New(wferr.MetaInvalid, "meta in the request (%s) and in the script (%s) differ; %s", req.kind, script.kind, fix)
	}
	fields := differingFields(req, script)
	return nil, wferr.New(wferr.MetaInvalid, "meta in the request and in the script differ in %s; %s", strings.Join(fields, ", "), fix)
}

// absent reports whether raw stands for no meta at all.
func absent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// differingFields lists, quoted, the top-level keys whose values differ
// between two objects: the request's keys in order, then the script's own.
func differingFields(req, script jsonValue) []string {
	var out []string
	seen := map[string]bool{}
	for _, obj := range []jsonValue{req, script} {
		for _, k := range obj.keys() {
			if seen[k] {
				continue
			}
			seen[k] = true
			a, okA := req.field(k)
			b, okB := script.field(k)
			if okA != okB || !a.equal(b) {
				out = append(out, strconv.Quote(k))
			}
		}
	}
	return out
}
