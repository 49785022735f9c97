package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
)

// keepAlive is how often an idle stream sends a comment, so that a browser
// or a proxy does not take it for dead and the server notices a client that
// has gone.
const keepAlive = 15 * time.Second

// maxLine bounds one line of events.jsonl that a stream holds while it
// waits for the line's end.
const maxLine = 8 << 20

// sse writes server-sent events.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w)}
	// A browser that loses the stream comes back after this long.
	s.write("retry: 1000\n\n")
	return s
}

func (s *sse) write(text string) error {
	if _, err := io.WriteString(s.w, text); err != nil {
		return err
	}
	return s.rc.Flush()
}

// event sends one event. data must hold no newline: the lines of
// events.jsonl are JSON, which escapes them.
func (s *sse) event(id, name string, data []byte) error {
	var b bytes.Buffer
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	fmt.Fprintf(&b, "data: %s\n\n", data)
	return s.write(b.String())
}

// eventStream is GET /runs/{id}/events: the run's events.jsonl from the
// offset the page was rendered at (?from=N, or the Last-Event-ID of a
// browser that reconnects), followed as the run's process appends to it.
// Each event's id is the offset just past its line.
func (s *Server) eventStream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !journal.ValidRunID(id) {
		s.message(w, r, http.StatusNotFound, "No such run", quote(id)+" is not a run id (wf_ and 16 hex digits).")
		return
	}
	run, err := s.cfg.Engine.Ledger().Get(r.Context(), id)
	if err != nil {
		s.runError(w, r, fmt.Errorf("the ledger holds no run %s: %w", id, errNoRun))
		return
	}
	from := r.URL.Query().Get("from")
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		from = last
	}
	offset, err := strconv.ParseInt(from, 10, 64)
	if from != "" && (err != nil || offset < 0) {
		http.Error(w, "from must be a byte offset of the run's events.jsonl, as the page gives it", http.StatusBadRequest)
		return
	}
	out := startSSE(w)
	// follow returns when the browser has gone or the server stops: there
	// is nobody left to tell how.
	_ = follow(r.Context(), filepath.Join(s.runDir(run), journal.EventsFile), offset, s.cfg.Poll, func(line []byte, end int64) error {
		return out.event(strconv.FormatInt(end, 10), "", line)
	}, func() error { return out.write(": keep-alive\n\n") })
}

// follow calls send with every whole line of path from offset on, and
// with the offset just past it, as they are appended, until ctx is done or
// send fails. A file that does not exist yet is waited for; a line is sent
// only once its newline is there, and only if it is JSON. idle is called
// when nothing was sent for keepAlive.
func follow(ctx context.Context, path string, offset int64, poll time.Duration, send func(line []byte, end int64) error, idle func() error) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var pending []byte
	quiet := time.Now()
	buf := make([]byte, 64<<10)
	for {
		if f == nil {
			var err error
			f, err = os.Open(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				f = nil
			case err != nil:
				return err
			default:
				if _, err := f.Seek(offset, io.SeekStart); err != nil {
					return err
				}
			}
		}
		for f != nil {
			n, err := f.Read(buf)
			pending = append(pending, buf[:n]...)
			for {
				line, rest, complete := bytes.Cut(pending, []byte("\n"))
				if !complete {
					break
				}
				offset += int64(len(line)) + 1
				pending = rest
				if line = bytes.TrimSpace(line); len(line) > 0 && json.Valid(line) {
					if err := send(line, offset); err != nil {
						return err
					}
					quiet = time.Now()
				}
			}
			if len(pending) > maxLine {
				// Not an event any writer of ours writes: skip to its end.
				offset += int64(len(pending))
				pending = pending[:0]
			}
			if err == io.EOF || n == 0 {
				break
			}
			if err != nil {
				return err
			}
		}
		if time.Since(quiet) >= keepAlive {
			if err := idle(); err != nil {
				return err
			}
			quiet = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ledgerStream is GET /events: an event "changed" whenever the runs of the
// ledger change (a run starts, beats, settles, gets a verb), so that the
// list re-renders without a reload.
//
// The first digest is taken before the stream answers: a change made once
// the client has the answer's headers is one the stream sends.
func (s *Server) ledgerStream(w http.ResponseWriter, r *http.Request) {
	s.sweep()
	last, _ := s.ledgerDigest()
	out := startSSE(w)
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	quiet := time.Now()
	for first := true; ; first = false {
		if !first {
			s.sweep()
		}
		if sum, ok := s.ledgerDigest(); ok && sum != last {
			if out.event("", "changed", []byte("{}")) != nil {
				return
			}
			quiet = time.Now()
			last = sum
		}
		if time.Since(quiet) >= keepAlive {
			if out.write(": keep-alive\n\n") != nil {
				return
			}
			quiet = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

// ledgerDigest sums what the list shows of every run.
func (s *Server) ledgerDigest() ([sha256.Size]byte, bool) {
	runs, err := s.cfg.Engine.Ledger().List(context.Background(), ledger.Filter{Limit: listLimit})
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	for _, r := range runs {
		fmt.Fprintf(h, "%s %s %d %d\n", r.ID, r.Status, r.UpdatedAt.UnixMilli(), r.AgentsSpawned)
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum, true
}
