package isolate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
)

// The pipe protocol between the engine's process (the parent) and the
// process that runs the VM (the child): frames of a 4-byte big-endian
// length followed by that many bytes of JSON, one message each, on the
// child's stdin (parent → child) and stdout (child → parent). Every message
// carries the protocol version; a peer that reads another version stops
// with an error rather than guess.

// Version is the protocol version this package speaks.
const Version = 1

// MaxFrame bounds one message: the largest a run can send is its result
// (16 MiB of JSON by default) or an agent's answer, with room to spare.
const MaxFrame = 256 << 20

// The message types.
const (
	// parent → child
	msgStart  = "start"  // the run: script, args, meta, limits, the provider's name and capabilities
	msgResult = "result" // the answer to a call, checkPersona or loadWorkflow (same ID)
	msgCancel = "cancel" // cancel the run, with the cause in Error
	// child → parent
	msgCall         = "call"         // run one child through the provider (ID, Request)
	msgAbort        = "abort"        // the child side gave up on call ID (its context is done)
	msgEvent        = "event"        // one event of the run
	msgCheckPersona = "checkPersona" // ask the provider whether Name is a persona it knows (ID)
	msgLoadWorkflow = "loadWorkflow" // resolve workflow(Name), or workflow({scriptPath: Path}) (ID)
	msgRecord       = "record"       // journal Entry durably before the script sees it (ID)
	msgEnd          = "end"          // the run's outcome; the child exits after it
)

// message is one frame. Which fields are set depends on Type.
type message struct {
	V    int    `json:"v"`
	Type string `json:"type"`
	ID   int64  `json:"id,omitempty"`

	Start   *startMsg             `json:"start,omitempty"`
	Request *agentapi.Request     `json:"request,omitempty"`
	Result  *agentapi.Result      `json:"result,omitempty"`
	Error   *wireError            `json:"error,omitempty"`
	Event   *runtime.Event        `json:"event,omitempty"`
	Name    string                `json:"name,omitempty"`
	Path    string                `json:"path,omitempty"`
	Script  *scriptMsg            `json:"script,omitempty"`
	Outcome *outcomeMsg           `json:"outcome,omitempty"`
	Entry   *runtime.JournalEntry `json:"entry,omitempty"`
}

// startMsg is what the child needs to run the script as runtime.Run would.
type startMsg struct {
	RunID, Parent string
	Script        scriptMsg
	Args          json.RawMessage
	Meta          meta.WorkflowMeta

	Provider     string
	Capabilities agentapi.Capabilities
	Personas     bool // the provider checks agentType names (agentapi.PersonaChecker)
	Workflows    bool // workflow() can load saved workflows
	Files        bool // workflow({scriptPath}) can load files of the workspace
	Journal      bool // the run is durable: every finished child is recorded through the parent
	Prior        []runtime.JournalEntry

	Concurrency, MaxAgents, MaxItems int
	Timeout, AgentTimeout            time.Duration
	BudgetTokens                     int64
	CancelGrace                      time.Duration
	MaxResultBytes                   int
	MaxMemory                        int64
	MaxCallStackSize                 int
	RegexpTimeout                    time.Duration
	MaxBusy                          time.Duration
}

// scriptMsg is a script as source: the child parses it itself.
type scriptMsg struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// outcomeMsg is runtime.Outcome without its Drained channel.
type outcomeMsg struct {
	Value         json.RawMessage        `json:"value,omitempty"`
	Err           *wireError             `json:"err,omitempty"`
	AgentsSpawned int                    `json:"agentsSpawned"`
	Agents        runtime.Counts         `json:"agents"`
	Usage         agentapi.Usage         `json:"usage"`
	Worktrees     []runtime.KeptWorktree `json:"worktrees,omitempty"`
}

// absent turns the JSON null that a nil json.RawMessage crosses the pipe as
// back into nil: for args, a schema or an output, absent and null differ.
func absent(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}

// wireError is a *wferr.Error as data.
type wireError struct {
	Code    wferr.Code `json:"code"`
	Message string     `json:"message"`
	Line    int        `json:"line,omitempty"`
	Column  int        `json:"column,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	e, ok := wferr.As(err)
	if !ok {
		return &wireError{Code: wferr.Internal, Message: err.Error()}
	}
	return &wireError{Code: e.Code, Message: e.Message, Line: e.Line, Column: e.Column}
}

func (w *wireError) err() *wferr.Error {
	if w == nil {
		return nil
	}
	return &wferr.Error{Code: w.Code, Message: w.Message, Line: w.Line, Column: w.Column}
}

// writer sends frames; it is safe for concurrent use.
type writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriter(w)} }

// send writes m as one frame and flushes it. After a failed write every
// later send fails the same way.
func (w *writer) send(m message) error {
	m.V = Version
	// Without HTML escaping: json.Marshal would turn the < > & of every
	// raw value crossing the pipe (a child's answer, a run's value) into
	// \u003c and so on, and a value must reach the engine, its journal and
	// the page byte for byte as the script made it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("isolate: cannot encode a %s message: %w", m.Type, err)
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(data) > MaxFrame {
		return fmt.Errorf("isolate: a %s message of %d bytes is over the limit of %d", m.Type, len(data), MaxFrame)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	if _, err := w.w.Write(n[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(data); err != nil {
		w.err = err
		return err
	}
	w.err = w.w.Flush()
	return w.err
}

// errVersion is a frame of another protocol version.
var errVersion = errors.New("isolate: the peer speaks another protocol version")

// readFrame reads one message. It refuses a frame over MaxFrame, JSON that
// is not a message, and another version; io.EOF means the peer closed the
// pipe between frames.
func readFrame(r *bufio.Reader) (message, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return message{}, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > MaxFrame {
		return message{}, fmt.Errorf("isolate: a frame of %d bytes is over the limit of %d", size, MaxFrame)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return message{}, fmt.Errorf("isolate: a frame is not a message: %w", err)
	}
	if m.V != Version {
		return message{}, fmt.Errorf("%w: got version %d, this side speaks %d", errVersion, m.V, Version)
	}
	if m.Type == "" {
		return message{}, errors.New("isolate: a frame has no message type")
	}
	return m, nil
}
