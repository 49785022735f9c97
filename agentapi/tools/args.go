package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// call decodes args into a fresh A and runs fn with it. Arguments must be
// one JSON object with only the tool's fields; "" and null mean {}.
func call[A any](ctx context.Context, name string, args json.RawMessage, fn func(context.Context, A) (string, error)) (string, error) {
	var a A
	if err := decode(name, args, &a); err != nil {
		return "", err
	}
	return fn(ctx, a)
}

// decode reads args into v strictly, with a sentence that names the tool
// and its fields when the arguments do not fit.
func decode(name string, args json.RawMessage, v any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return fmt.Errorf("the arguments of %s must be a JSON object with the fields %s", name, fieldList(v))
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("the arguments of %s are not valid: %q must be %s, not a JSON %s", name, te.Field, kind(te.Type), te.Value)
		}
		return fmt.Errorf("the arguments of %s are not valid (%s): %s takes %s", name, strings.TrimPrefix(err.Error(), "json: "), name, fieldList(v))
	}
	if dec.More() {
		return fmt.Errorf("the arguments of %s must be a single JSON object", name)
	}
	return nil
}

func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Slice:
		return "an array"
	case reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// fieldList names the JSON fields of the struct v points to.
func fieldList(v any) string {
	t := reflect.TypeOf(v).Elem()
	var names []string
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" && t.Field(i).Tag.Get("tools") != "hidden" {
			names = append(names, tag)
		}
	}
	return strings.Join(names, ", ")
}
