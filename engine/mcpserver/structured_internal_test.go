package mcpserver

import (
	"encoding/json"
	"testing"
)

func TestStructured_OpensWithTheErrorFlag(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		isErr bool
		inner any
		want  string
	}{
		{"an error", "INVALID_REQUEST: bad\nmore", true, map[string]string{"errorCode": "INVALID_REQUEST"},
			`{"isError":true,"summary":"INVALID_REQUEST: bad","errorText":"INVALID_REQUEST: bad\nmore","errorCode":"INVALID_REQUEST"}`},
		{"a success", "done\n5", false, struct {
			Value int `json:"value"`
		}{5}, `{"isError":false,"summary":"done","value":5}`},
		{"no object of the tool's", "refused", true, nil, `{"isError":true,"summary":"refused","errorText":"refused"}`},
		{"an empty object", "ok", false, struct{}{}, `{"isError":false,"summary":"ok"}`},
		{"not an object", "ok", false, []int{1}, `{"isError":false,"summary":"ok"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(newStructured(tc.text, tc.isErr, tc.inner))
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}
