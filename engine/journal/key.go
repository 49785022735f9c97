package journal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"io/fs"
	"os"

	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/internal/statedir"
)

// KeysDir is the folder of run keys inside wfrun's state folder.
const KeysDir = "keys"

// keySize is the length of a run key in bytes.
const keySize = 32

// Key is a run's secret: the HMAC-SHA256 key of its journal lines and its
// seal. It lives in wfrun's state folder (internal/statedir), which no
// child can read, never in the run folder.
type Key []byte

// ErrNoKey is returned (wrapped) by LoadKey for a run that has no key.
var ErrNoKey = errors.New("the run has no key")

// randRead is crypto/rand's Read.
var randRead = rand.Read

// NewKey makes a fresh key for runID in stateDir (creating the folders,
// private to the user, without following a link) and returns it. The key
// file is written once and synced; a run that already has one is an
// error.
func NewKey(stateDir, runID string) (Key, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	if err := statedir.Make(stateDir, KeysDir); err != nil {
		return nil, err
	}
	k := make(Key, keySize)
	if _, err := randRead(k); err != nil {
		return nil, fmt.Errorf("cannot draw a run key: %w", err)
	}
	f, err := nofollow.OpenFile(stateDir, KeysDir+"/"+runID, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot create the key of run %s in %s: %w", runID, stateDir, err)
	}
	_, err = f.Write(k)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write the key of run %s: %w", runID, err)
	}
	if d, err := nofollow.OpenDir(stateDir, KeysDir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return k, nil
}

// LoadKey returns runID's key from stateDir; a run without one is an error
// wrapping ErrNoKey.
func LoadKey(stateDir, runID string) (Key, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	data, err := nofollow.ReadFile(stateDir, KeysDir+"/"+runID)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s has no key in %s: %w", runID, stateDir, ErrNoKey)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the key of run %s: %w", runID, err)
	}
	if len(data) != keySize {
		return nil, fmt.Errorf("the key of run %s in %s is %d bytes, not %d: it was changed; the run's journal cannot be checked", runID, stateDir, len(data), keySize)
	}
	return Key(data), nil
}

// mac is HMAC-SHA256 under k of the parts, each preceded by its length so
// that no two different sequences of parts give the same input.
func (k Key) mac(parts ...[]byte) []byte {
	h := hmac.New(sha256.New, k)
	for _, p := range parts {
		var n [8]byte
		for i := range n {
			n[i] = byte(uint64(len(p)) >> (8 * i))
		}
		h.Write(n[:])
		h.Write(p)
	}
	return h.Sum(nil)
}

// seal is seal.json: the MAC of each sealed file of the folder.
type seal struct {
	V     int               `json:"v"`
	Files map[string]string `json:"files"` // name → hex MAC
}

var sealDomain = []byte("wfrun seal v1")

// Seal writes seal.json with the MACs, under k, of the folder's files
// names as they are now. Call it after writing them.
func (f *Folder) Seal(k Key, names ...string) error {
	s := seal{V: 1, Files: map[string]string{}}
	for _, name := range names {
		data, err := f.ReadFile(name)
		if err != nil {
			return err
		}
		s.Files[name] = hex.EncodeToString(k.mac(sealDomain, []byte(name), data))
	}
	return f.WriteJSON(SealFile, s)
}

// ErrForged is the cause when a file of a run folder does not match its
// MAC: it was changed by something that does not hold the run's key.
var ErrForged = errors.New("it does not match its MAC")

// ReadSealed reads name and checks it against seal.json under k. A file
// that seal.json does not vouch for — changed, or no seal at all — is an
// error wrapping ErrForged.
func (f *Folder) ReadSealed(k Key, name string) ([]byte, error) {
	data, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	raw, err := f.ReadFile(SealFile)
	if err != nil {
		return nil, fmt.Errorf("%s of %s cannot be checked: %w (%w)", name, f.Dir(), err, ErrForged)
	}
	var s seal
	if err := json.Unmarshal(raw, &s); err != nil || s.V != 1 {
		return nil, fmt.Errorf("%s of %s cannot be checked: its seal.json is damaged (%w)", name, f.Dir(), ErrForged)
	}
	want, err := hex.DecodeString(s.Files[name])
	if err != nil || !hmac.Equal(want, k.mac(sealDomain, []byte(name), data)) {
		return nil, fmt.Errorf("%s of %s was changed after wfrun wrote it: %w", name, f.Dir(), ErrForged)
	}
	return data, nil
}
