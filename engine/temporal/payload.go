package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/wfrun/wfrun/engine/journal"
)

// PayloadInline is the largest payload a history keeps itself. Anything
// larger — a long prompt, an agent's answer, the script, big args, the
// run's value — goes to the PayloadStore and the history keeps a
// reference of about 100 bytes (the claim-check pattern), so that a run's
// history stays far under Temporal's 50 MB and its 2 MB per payload
// whatever its agents return.
const PayloadInline = 4 << 10

// DefaultPayloadDir is where a zero Options keeps large payloads: one
// folder per user (~/.wfrun/temporal-payloads), so that a worker and a
// client started from different folders of one machine share it.
func DefaultPayloadDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".wfrun", "temporal-payloads")
	}
	return filepath.Join(home, ".wfrun", "temporal-payloads")
}

// refEncoding marks a payload that stands for one in the store.
const refEncoding = "wfrun/payload-ref"

// PayloadStore keeps payloads by content. Put must be durable when it
// returns and idempotent for equal data; Get returns exactly what Put was
// given. Every worker and client of a task queue must reach the same
// store: a payload put on one machine is read on another.
type PayloadStore interface {
	Put(ctx context.Context, data []byte) (key string, err error)
	Get(ctx context.Context, key string) ([]byte, error)
}

// SweepableStore is a PayloadStore whose payloads can be listed and
// deleted: what CollectPayloads needs. DirStore and BlobStore are.
type SweepableStore interface {
	PayloadStore
	// List calls fn with every payload of the store, in no set order;
	// anything in the store that is not named like a payload is skipped.
	List(ctx context.Context, fn func(StoredPayload) error) error
	// Delete removes the payload of key; a key already gone is no error.
	Delete(ctx context.Context, key string) error
}

// StoredPayload is one payload of a store, as List sees it.
type StoredPayload struct {
	Key  string
	Size int64
	// Written is when the payload was last written. Put writes a payload
	// again (or touches its file) when it is older than payloadRefresh, so
	// a payload that a run still being started refers to is never older
	// than that.
	Written time.Time
}

// payloadRefresh is how old a payload may be before Put, asked to store
// it again, writes it again instead of finding it there: the guarantee
// CollectPayloads' MinAge rests on (a payload put for a run that Temporal
// does not list yet is at most this old).
const payloadRefresh = time.Hour

// validKey says whether key is a payload key: a SHA-256 in lower-case
// hex, never a path.
func validKey(key string) bool {
	if len(key) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// keyOf is the payload key of data.
func keyOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// objectName is where a payload lives in a store: KEY[:2]/KEY, a folder
// per first byte (DirStore's files, BlobStore's objects alike).
func objectName(key string) string { return key[:2] + "/" + key }

// keyOfObject is the key of the payload at name, "" when name is not
// where a payload lives.
func keyOfObject(name string) string {
	dir, key, ok := strings.Cut(name, "/")
	if !ok || !validKey(key) || dir != key[:2] {
		return ""
	}
	return key
}

// DirStore is a PayloadStore in a folder, one file per payload named by
// its SHA-256. On several machines the folder must be shared (a network
// file system, a mounted volume).
type DirStore struct {
	Dir string
}

// Put writes data under its hash, atomically (journal.WriteAtomic),
// and does nothing when the file is already there, but touch it when it
// was written more than payloadRefresh ago.
func (s DirStore) Put(_ context.Context, data []byte) (string, error) {
	key := keyOf(data)
	path := s.path(key)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(data)) {
		if now := time.Now(); now.Sub(st.ModTime()) > payloadRefresh {
			if err := os.Chtimes(path, now, now); err != nil {
				return "", fmt.Errorf("payload store %s: %w", s.Dir, err)
			}
		}
		return key, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	if err := journal.WriteAtomic(path, data); err != nil {
		return "", fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	return key, nil
}

// Get reads the payload of key and checks it against its hash.
func (s DirStore) Get(_ context.Context, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("payload store %s: %q is not a payload key", s.Dir, key)
	}
	data, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missingPayload(key, s.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	if keyOf(data) != key {
		return nil, damagedPayload(key, s.Dir)
	}
	return data, nil
}

// List calls fn with every payload file of the folder. A folder that does
// not exist holds no payloads.
func (s DirStore) List(ctx context.Context, fn func(StoredPayload) error) error {
	dirs, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		files, err := os.ReadDir(filepath.Join(s.Dir, d.Name()))
		if err != nil {
			return fmt.Errorf("payload store %s: %w", s.Dir, err)
		}
		for _, f := range files {
			key := keyOfObject(d.Name() + "/" + f.Name())
			if key == "" || !f.Type().IsRegular() {
				continue
			}
			info, err := f.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("payload store %s: %w", s.Dir, err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(StoredPayload{Key: key, Size: info.Size(), Written: info.ModTime()}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete removes the file of key.
func (s DirStore) Delete(_ context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("payload store %s: %q is not a payload key", s.Dir, key)
	}
	if err := os.Remove(s.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	return nil
}

// String names the store in messages.
func (s DirStore) String() string { return s.Dir }

func missingPayload(key, store string) error {
	return fmt.Errorf("payload %s is not in the payload store %s: every worker and client of a task queue must use the same store (--payloads), and a payload is deleted only when no history of the namespace refers to it (wfrun temporal gc)", key, store)
}

func damagedPayload(key, store string) error {
	return fmt.Errorf("payload %s in the payload store %s is damaged (its content does not match its name)", key, store)
}

func (s DirStore) path(key string) string {
	return filepath.Join(s.Dir, filepath.FromSlash(objectName(key)))
}

// payloadRef is the data of a reference payload.
type payloadRef struct {
	Key  string `json:"key"`
	Size int    `json:"size"`
}

// codec moves payloads over PayloadInline bytes into the store and back.
// It runs wherever payloads are encoded or decoded — clients, workers, the
// replayer — outside workflow code, so reading the store is no concern of
// determinism.
type codec struct {
	store PayloadStore
}

// NewDataConverter returns Temporal's default data converter with every
// payload over PayloadInline bytes kept in store. Clients and workers of
// a task queue must all use one (Dial does).
func NewDataConverter(store PayloadStore) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), &codec{store: store})
}

func (c *codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if proto.Size(p) <= PayloadInline {
			out[i] = p
			continue
		}
		raw, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		key, err := c.store.Put(context.Background(), raw)
		if err != nil {
			return nil, err
		}
		ref, _ := json.Marshal(payloadRef{Key: key, Size: len(raw)})
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(refEncoding)}, Data: ref}
	}
	return out, nil
}

func (c *codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != refEncoding {
			out[i] = p
			continue
		}
		var ref payloadRef
		if err := json.Unmarshal(p.GetData(), &ref); err != nil {
			return nil, fmt.Errorf("a payload reference is not readable: %w", err)
		}
		raw, err := c.store.Get(context.Background(), ref.Key)
		if err != nil {
			return nil, err
		}
		var orig commonpb.Payload
		if err := proto.Unmarshal(raw, &orig); err != nil {
			return nil, fmt.Errorf("payload %s is not a Temporal payload: %w", ref.Key, err)
		}
		out[i] = &orig
	}
	return out, nil
}
