package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/wfrun/wfrun/internal/strictjson"
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
	err := strictjson.Decode(args, v)
	if err == nil {
		return nil
	}
	switch p := strictjson.Explain(err, v); p.Kind {
	case strictjson.WrongField:
		return fmt.Errorf("the arguments of %s are not valid: %q must be %s, not a JSON %s", name, p.Field, p.Want, p.Got)
	case strictjson.Trailing:
		return fmt.Errorf("the arguments of %s must be a single JSON object", name)
	}
	return fmt.Errorf("the arguments of %s are not valid (%s): %s takes %s", name, strings.TrimPrefix(err.Error(), "json: "), name, fieldList(v))
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
