package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/strictjson"
)

// MaxLineBytes is the longest line LineTransport reads as a message: the
// SDK's own cap on a frame (mcp.DefaultMaxLineLength). A longer line is
// answered as an invalid request and skipped.
const MaxLineBytes = mcp.DefaultMaxLineLength

// LineTransport returns the transport of one session over newline-delimited
// JSON-RPC: messages are read from in, one per line, and written to out.
// wfrun mcp serves stdio with it.
//
// Unlike mcp.IOTransport, whose session ends on the first line it cannot
// decode, a line that is not a message is answered here and the session
// goes on: a line that is not JSON gets a JSON-RPC parse error (-32700), and
// JSON that is not a JSON-RPC 2.0 message — or a line over MaxLineBytes, or
// a batch the session's protocol version has no batches for — gets an
// invalid-request error (-32600). The answer's id is the line's id when it
// has a usable one; else it has none, as MCP's schema of an error response
// allows (JSON-RPC's null fails the TypeScript SDK's schema, which then
// drops the answer). Blank lines are skipped.
//
// Closing the connection closes in when it is an io.Closer; out is never
// closed. The answers and the SDK's messages are written to out one whole
// line at a time, so they never interleave.
func LineTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &lineTransport{in: in, out: out}
}

type lineTransport struct {
	in  io.Reader
	out io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lineWriter{w: t.out}
	r := &lineReader{src: t.in, in: bufio.NewReaderSize(t.in, 64<<10), answer: w}
	// The reader hands the SDK one well-formed line at a time, none longer
	// than MaxLineBytes: the SDK's own cap is not needed.
	return (&mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter serializes whole-line writes to the transport's output: the
// SDK's (one Write per message) and the reader's answers.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Close does nothing: the output belongs to whoever made the transport.
func (w *lineWriter) Close() error { return nil }

// lineReader is what the SDK reads: the lines of in that are JSON-RPC
// messages, each ending in a newline. It answers the other lines itself.
// Read is called by the SDK's one reading goroutine only.
type lineReader struct {
	src    io.Reader
	in     *bufio.Reader
	answer io.Writer

	line    int    // lines read so far, blank ones too, for the answers' messages
	version string // the protocol version the client's initialize asked for
	pending []byte // the rest of the current message line
	err     error  // the error that ended in, returned once pending is drained
}

func (r *lineReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, tooLong, err := r.readLine()
		if err != nil {
			r.err = err
		}
		r.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 && !tooLong {
			continue
		}
		if refusal := r.check(line, tooLong); refusal != nil {
			if _, werr := r.answer.Write(refusal); werr != nil {
				r.err = werr
			}
			continue
		}
		r.pending = append(line, '\n')
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// Close closes in when it can be closed.
func (r *lineReader) Close() error {
	if c, ok := r.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// readLine reads the next line without its newline. A line over
// MaxLineBytes is read to its end and dropped (tooLong). err is in's error
// (io.EOF at its end), with the last line, if it had no newline.
func (r *lineReader) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// check returns the answer to a line that the SDK must not see, or nil
// for a message, noting the protocol version an initialize asks for.
func (r *lineReader) check(line []byte, tooLong bool) []byte {
	if tooLong {
		return refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: line %d is longer than %s; send smaller messages", r.line, human.Bytes(MaxLineBytes))
	}
	if !json.Valid(line) {
		err := json.Unmarshal(line, new(any))
		if p := strictjson.Explain(err, nil); p.Kind == strictjson.Syntax {
			err = fmt.Errorf("%v at byte %d", err, p.Offset)
		}
		return refusal(nil, jsonrpc.CodeParseError, "parse error: line %d is not JSON (%v); send one JSON-RPC message per line", r.line, err)
	}
	if line[0] == '[' {
		return r.checkBatch(line)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return refusal(usableID(line), jsonrpc.CodeInvalidRequest, "invalid request: line %d is JSON but not a JSON-RPC 2.0 message (%v); send an object with \"jsonrpc\": \"2.0\", a string \"method\" and a string or number \"id\" (none for a notification)", r.line, err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &params)
		r.version = params.ProtocolVersion
	}
	return nil
}

// batchesUntil is the first protocol version without JSON-RPC batches.
const batchesUntil = "2025-06-18"

// checkBatch refuses a batch unless the session speaks a protocol version
// that has them and every element is a message with an id of its own:
// the SDK ends the session on any other batch.
func (r *lineReader) checkBatch(line []byte) []byte {
	if !slices.Contains(ProtocolVersions(), r.version) || r.version >= batchesUntil {
		return refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: line %d is a JSON-RPC batch, which MCP %s has not (batches ended with %s); send one message per line", r.line, r.negotiated(), batchesUntil)
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(line, &raws)
	if len(raws) == 0 {
		return refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: line %d is an empty batch; send at least one message", r.line)
	}
	seen := map[jsonrpc.ID]bool{}
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: element %d of the batch on line %d is not a JSON-RPC 2.0 message (%v)", i, r.line, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if seen[req.ID] {
				return refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: the batch on line %d has the id %v twice; give each request its own id", r.line, req.ID.Raw())
			}
			seen[req.ID] = true
		}
	}
	return nil
}

// negotiated is the protocol version the SDK settles on for the version
// the client asked for: that one when the server speaks it, else the latest.
func (r *lineReader) negotiated() string {
	if slices.Contains(ProtocolVersions(), r.version) {
		return r.version
	}
	return ProtocolVersions()[0]
}

// usableID returns the line's id when it is a string or a number, the
// kinds an answer can carry back, or nil.
func usableID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id any
	if json.Unmarshal(m.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// refusal is a JSON-RPC error response line with id (none when nil).
func refusal(id json.RawMessage, code int64, format string, args ...any) []byte {
	data, _ := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: fmt.Sprintf(format, args...)}})
	return append(data, '\n')
}

// errorResponse is a JSON-RPC 2.0 error response whose id may be absent,
// which jsonrpc.Response cannot say.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}
