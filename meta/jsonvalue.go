package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// jsonValue is a decoded JSON value that keeps the order of object keys,
// which encoding/json's map decoding loses and warnings need.
type jsonValue struct {
	kind    jsonKind
	str     string      // kindString
	num     json.Number // kindNumber
	boolean bool        // kindBool
	items   []jsonValue // kindArray
	fields  []jsonField // kindObject, in source order, duplicates kept
}

type jsonField struct {
	key   string
	value jsonValue
}

type jsonKind int

const (
	kindNull jsonKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String is the kind's name as a message shows it ("got number").
func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// decodeJSON decodes one JSON value. It checks the whole input with
// encoding/json first, so syntax errors read as usual and the nesting depth
// is bounded before decodeValue recurses.
func decodeJSON(raw []byte) (jsonValue, error) {
	var check json.RawMessage
	if err := json.Unmarshal(raw, &check); err != nil {
		return jsonValue{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	switch t := tok.(type) {
	case nil:
		return jsonValue{kind: kindNull}, nil
	case bool:
		return jsonValue{kind: kindBool, boolean: t}, nil
	case json.Number:
		return jsonValue{kind: kindNumber, num: t}, nil
	case string:
		return jsonValue{kind: kindString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := jsonValue{kind: kindArray, items: []jsonValue{}}
			for dec.More() {
				item, err := decodeValue(dec)
				if err != nil {
					return jsonValue{}, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token() // ]
			return v, err
		case '{':
			v := jsonValue{kind: kindObject, fields: []jsonField{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jsonValue{}, err
				}
				key, ok := kt.(string)
				if !ok {
					return jsonValue{}, fmt.Errorf("object key %v is not a string", kt)
				}
				val, err := decodeValue(dec)
				if err != nil {
					return jsonValue{}, err
				}
				v.fields = append(v.fields, jsonField{key: key, value: val})
			}
			_, err := dec.Token() // }
			return v, err
		}
	}
	return jsonValue{}, io.ErrUnexpectedEOF
}

// field returns the last value of key, as JSON.parse would keep it.
func (v jsonValue) field(key string) (jsonValue, bool) {
	for i := len(v.fields) - 1; i >= 0; i-- {
		if v.fields[i].key == key {
			return v.fields[i].value, true
		}
	}
	return jsonValue{}, false
}

// equal reports whether a and b are the same JSON value: object key order
// does not matter and numbers compare by value (1 equals 1.0).
func (v jsonValue) equal(w jsonValue) bool {
	a, b := v, w
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull:
		return true
	case kindBool:
		return a.boolean == b.boolean
	case kindString:
		return a.str == b.str
	case kindNumber:
		return numbersEqual(a.num, b.num)
	case kindArray:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !a.items[i].equal(b.items[i]) {
				return false
			}
		}
		return true
	case kindObject:
		ka, kb := a.keys(), b.keys()
		if len(ka) != len(kb) {
			return false
		}
		for _, k := range ka {
			av, _ := a.field(k)
			bv, ok := b.field(k)
			if !ok || !av.equal(bv) {
				return false
			}
		}
		return true
	}
	return false
}

// keys returns the distinct keys of an object in order of first appearance.
func (v jsonValue) keys() []string {
	seen := make(map[string]bool, len(v.fields))
	var keys []string
	for _, f := range v.fields {
		if !seen[f.key] {
			seen[f.key] = true
			keys = append(keys, f.key)
		}
	}
	return keys
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, errA := strconv.ParseFloat(string(a), 64)
	fb, errB := strconv.ParseFloat(string(b), 64)
	return errA == nil && errB == nil && fa == fb
}
