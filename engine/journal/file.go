package journal

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/wfrun/wfrun/runtime"
)

// Version is the version of the journal's line format, its field "v".
// Version 2 added the line's MAC; version 1 lines (no MAC) are refused.
const Version = 2

// line is one line of journal.jsonl without its MAC.
type line struct {
	V int `json:"v"`
	runtime.JournalEntry
}

// A line is its body with `,"mac":"<64 hex>"}` in place of the body's
// closing brace. The MAC is HMAC-SHA256, under the run's key, of the
// previous line's MAC (none for the first) and the body: so a line cannot
// be changed, dropped from the middle, reordered or added without the key.
const (
	macPrefix = `,"mac":"`
	macSuffix = `"}`
	macHex    = 64
	macTail   = len(macPrefix) + macHex + len(macSuffix)
)

var journalDomain = []byte("wfrun journal v2")

// ErrLegacy is the cause when a journal holds lines written before wfrun
// authenticated its journals (version 1, no MAC).
var ErrLegacy = errors.New("the journal was written by an older wfrun, without MACs")

// seal appends the MAC of body (a JSON object) chained to prev and returns
// the line, its newline included, and its MAC.
func (k Key) sealLine(prev, body []byte) (out, mac []byte) {
	mac = k.mac(journalDomain, prev, body)
	out = make([]byte, 0, len(body)+macTail)
	out = append(out, body[:len(body)-1]...)
	out = append(out, macPrefix...)
	out = hex.AppendEncode(out, mac)
	out = append(out, macSuffix...)
	return append(out, '\n'), mac
}

// openLine checks text (one line, without its newline) against prev under
// k and returns its entry and MAC. A version 1 line is ErrLegacy.
func (k Key) openLine(prev, text []byte) (runtime.JournalEntry, []byte, error) {
	n := len(text)
	if n <= macTail || text[0] != '{' || !bytes.Equal(text[n-macTail:n-macTail+len(macPrefix)], []byte(macPrefix)) ||
		!bytes.HasSuffix(text, []byte(macSuffix)) {
		var old line
		if json.Unmarshal(text, &old) == nil && old.V == 1 {
			return old.JournalEntry, nil, ErrLegacy
		}
		if json.Unmarshal(text, &old) == nil && old.V > Version {
			return old.JournalEntry, nil, fmt.Errorf("it is of journal version %d, newer than this wfrun's %d; resume the run with the wfrun that wrote it", old.V, Version)
		}
		return runtime.JournalEntry{}, nil, errors.New("it has no MAC")
	}
	got, err := hex.DecodeString(string(text[n-macTail+len(macPrefix) : n-len(macSuffix)]))
	if err != nil {
		return runtime.JournalEntry{}, nil, errors.New("its MAC is not hex")
	}
	body := append(bytes.Clone(text[:n-macTail]), '}')
	want := k.mac(journalDomain, prev, body)
	if !hmac.Equal(got, want) {
		return runtime.JournalEntry{}, nil, errors.New("its MAC does not match: it was written, changed or moved by something that does not hold the run's key")
	}
	var l line
	if err := json.Unmarshal(body, &l); err != nil {
		return runtime.JournalEntry{}, nil, fmt.Errorf("it is not JSON (%v)", err)
	}
	if l.V != Version || l.Seq < 1 || !l.Status.Valid() {
		return runtime.JournalEntry{}, nil, fmt.Errorf("version %d, seq %d, status %q", l.V, l.Seq, l.Status)
	}
	return l.JournalEntry, want, nil
}

// parsed is what parse finds in a journal.
type parsed struct {
	entries []runtime.JournalEntry
	good    int    // the length of the prefix of whole, checked lines: what File keeps
	last    []byte // the MAC of the last checked line: the next line chains to it
	lines   int    // checked lines
	at      []byte // the MAC of the checked line number want.Lines, once it is read
}

// parse checks the lines of data, a journal at path, under k. Every line
// that ends with a newline must pass its check; only a last line without
// one — what a crash in the middle of a write leaves — may fail it, and is
// then left out (that child runs again).
func parse(path string, k Key, data []byte, want Head) (parsed, error) {
	var p parsed
	bySeq := map[int]int{} // seq → index in entries
	for n, rest := 1, data; len(rest) > 0; n++ {
		text, after, complete := bytes.Cut(rest, []byte("\n"))
		rest = after
		if len(bytes.TrimSpace(text)) == 0 {
			if complete {
				p.good = len(data) - len(rest)
			}
			continue
		}
		e, mac, err := k.openLine(p.last, text)
		if err != nil && !complete {
			break // torn by a crash: the write never finished
		}
		if errors.Is(err, ErrLegacy) {
			return parsed{}, fmt.Errorf("%s line %d has no MAC: %w. Its answers cannot be told from ones a child wrote, so it is not replayed: start the run again, or move journal.jsonl aside to resume with every agent run again", path, n, ErrLegacy)
		}
		if err != nil {
			return parsed{}, fmt.Errorf("%s line %d fails its check (%v): %w. wfrun replays only lines it wrote itself, and a crash damages only an unfinished last line, so the file was changed — a child's tool can reach the runs folder. Look at the file; move it aside to resume with every agent run again, or start the run again", path, n, err, ErrForged)
		}
		if i, ok := bySeq[e.Seq]; ok {
			p.entries[i] = e
		} else {
			bySeq[e.Seq] = len(p.entries)
			p.entries = append(p.entries, e)
		}
		p.last = mac
		p.lines++
		if p.lines == want.Lines {
			p.at = mac
		}
		if complete {
			p.good = len(data) - len(rest)
		} else {
			p.good = len(data) // a whole entry whose newline was lost: File adds it
		}
	}
	if want.Lines > 0 && len(bytes.TrimSpace(data)) > 0 {
		// An empty journal is what a person who moved it aside wants:
		// every agent runs again. Anything else must reach the head.
		if p.lines < want.Lines {
			return parsed{}, fmt.Errorf("%s holds %d lines, but it held %d when the run last settled: lines were removed from its end (%w). wfrun does not run those agents again in silence; move it aside to resume with every agent run again, or start the run again", path, p.lines, want.Lines, ErrForged)
		}
		if hex.EncodeToString(p.at) != want.MAC {
			return parsed{}, fmt.Errorf("%s line %d is not the line it was when the run last settled (%w); move it aside to resume with every agent run again, or start the run again", path, want.Lines, ErrForged)
		}
	}
	return p, nil
}

// ReadJournal returns the entries of the folder's journal, checked under
// k, the last line of each seq winning, in the order of the file. A
// missing file is an empty journal; a link is refused. A torn last line
// is left out; any other line that fails its check is an error wrapping
// ErrForged (or ErrLegacy for a line without a MAC). at is the head the
// journal had when its run last settled (LoadHead; the zero Head for
// none): a journal shorter than that but not empty, or different up to
// it, is an error wrapping ErrForged.
func (f *Folder) ReadJournal(k Key, at Head) ([]runtime.JournalEntry, error) {
	data, err := f.ReadFile(JournalFile)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the journal: %w", err)
	}
	p, err := parse(f.Path(JournalFile), k, data, at)
	return p.entries, err
}

// File is an open journal that a run appends to: the runtime.Journal of
// one attempt. It is safe for concurrent use.
type File struct {
	prior []runtime.JournalEntry
	key   Key

	mu     sync.Mutex
	f      *os.File
	last   []byte // the MAC of the last line: the next chains to it
	lines  int    // lines in the file
	buf    bytes.Buffer
	budget *Budget
}

// SetBudget makes every later Record take its line from b, and fail,
// writing nothing, when b refuses it.
func (j *File) SetBudget(b *Budget) {
	j.mu.Lock()
	j.budget = b
	j.mu.Unlock()
}

// OpenJournal opens (or creates) the folder's journal for appending under
// k, without following a link, first checking every line and cutting off
// a torn last line (and adding a newline a whole last line lacks), so that
// new lines start on a line of their own. A line that fails its check is
// an error, as for ReadJournal: it is never cut, and neither is a journal
// shorter than its head at. prior is what the attempt replays (Prior): the
// entries of the run it resumes, or of this same file when the run
// continues in place.
func (f *Folder) OpenJournal(k Key, at Head, prior []runtime.JournalEntry) (*File, error) {
	path := f.Path(JournalFile)
	file, err := f.open(JournalFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the journal: %w", err)
	}
	fail := func(err error) (*File, error) {
		file.Close()
		return nil, fmt.Errorf("cannot open the journal %s: %w", path, err)
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return fail(err)
	}
	p, err := parse(path, k, data, at)
	if err != nil {
		return nil, errors.Join(err, file.Close())
	}
	if p.good < len(data) {
		if err := file.Truncate(int64(p.good)); err != nil {
			return fail(err)
		}
	}
	if _, err := file.Seek(int64(p.good), io.SeekStart); err != nil {
		return fail(err)
	}
	if p.good > 0 && data[p.good-1] != '\n' {
		if _, err := file.Write([]byte("\n")); err != nil {
			return fail(err)
		}
	}
	if err := file.Sync(); err != nil {
		return fail(err)
	}
	f.syncDir() // the new file's name is durable; best effort
	return &File{prior: prior, key: k, f: file, last: p.last, lines: p.lines}, nil
}

// Prior returns the entries the attempt replays.
func (j *File) Prior() []runtime.JournalEntry { return j.prior }

// Record appends e as one line with its MAC and fsyncs the file: when it
// returns nil, the entry survives a crash. A line the budget (SetBudget)
// refuses is not written, and the error wraps ErrFolderFull.
func (j *File) Record(e runtime.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("the journal is closed")
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line{V: Version, JournalEntry: e}); err != nil {
		return fmt.Errorf("cannot encode agent %d for the journal: %w", e.Seq, err)
	}
	out, mac := j.key.sealLine(j.last, bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	if err := j.budget.take(len(out), JournalFile); err != nil {
		return err
	}
	if _, err := j.f.Write(out); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.last = mac
	j.lines++
	return nil
}

// Head returns how far the journal has got: its number of lines and the
// MAC of the last.
func (j *File) Head() Head {
	j.mu.Lock()
	defer j.mu.Unlock()
	return Head{Lines: j.lines, MAC: hex.EncodeToString(j.last)}
}

// Close closes the file. Record fails after it.
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
