package isolate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

func frame(payload string) []byte {
	var b bytes.Buffer
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(payload)))
	b.Write(n[:])
	b.WriteString(payload)
	return b.Bytes()
}

func TestProtocol_MessagesCrossThePipeIntact(t *testing.T) {
	var buf bytes.Buffer
	w := newWriter(&buf)
	msgs := []message{
		{Type: msgCall, ID: 7, Request: &agentapi.Request{AgentID: "ag_1", Prompt: "p", Schema: []byte(`{"type":"object"}`), Tools: []string{"Read"}}},
		{Type: msgResult, ID: 7, Result: &agentapi.Result{Status: agentapi.StatusCompleted, Output: []byte(`{"a":1}`), Usage: agentapi.Usage{InputTokens: 3}}},
		{Type: msgEvent, Event: &runtime.Event{Type: runtime.EventLog, RunID: "wf_1", Message: "é and \u2028"}},
		{Type: msgCancel, Error: toWire(wferr.New(wferr.Cancelled, "stop"))},
	}
	for _, m := range msgs {
		if err := w.send(m); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for i, want := range msgs {
		got, err := readFrame(r)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got.Type != want.Type || got.ID != want.ID || got.V != Version {
			t.Fatalf("frame %d: %+v", i, got)
		}
	}
	if _, err := readFrame(r); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v", err)
	}
}

// A raw value crosses the pipe byte for byte: no HTML escaping of its
// < > & (the page showed \u003cb\u003e for an answer's <b>).
func TestProtocol_RawValuesCrossWithoutHTMLEscaping(t *testing.T) {
	var buf bytes.Buffer
	raw := `{"answer":"<b>under load</b> & more"}`
	if err := newWriter(&buf).send(message{Type: msgResult, ID: 1, Result: &agentapi.Result{Status: agentapi.StatusCompleted, Output: []byte(raw)}}); err != nil {
		t.Fatal(err)
	}
	got, err := readFrame(bufio.NewReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Result.Output) != raw {
		t.Fatalf("the value crossed as %s, want %s", got.Result.Output, raw)
	}
}

func TestProtocol_BadFramesAreRefused(t *testing.T) {
	huge := make([]byte, 4)
	binary.BigEndian.PutUint32(huge, MaxFrame+1)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"another version", frame(`{"v":2,"type":"call"}`), "another protocol version"},
		{"no type", frame(`{"v":1}`), "no message type"},
		{"not JSON", frame(`{"v":1,`), "not a message"},
		{"too large", huge, "over the limit"},
		{"cut short", frame(`{"v":1,"type":"call"}`)[:10], "unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readFrame(bufio.NewReader(bytes.NewReader(c.data)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add(frame(`{"v":1,"type":"call","id":1,"request":{"Prompt":"x"}}`))
	f.Add(frame(`{"v":1,"type":"end","outcome":{"value":[1],"agentsSpawned":1}}`))
	f.Add(frame(`{"v":1,"type":"event","event":{"type":"agent.end","usage":{"inputTokens":-1}}}`))
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for i := 0; i < 8; i++ {
			m, err := readFrame(r)
			if err != nil {
				return
			}
			if m.V != Version || m.Type == "" {
				t.Fatalf("accepted %+v", m)
			}
			var out bytes.Buffer
			if err := newWriter(&out).send(m); err != nil {
				t.Fatalf("a message read cannot be written again: %v", err)
			}
		}
	})
}
