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

// DirStore is a PayloadStore in a folder, one file per payload named by
// its SHA-256. On several machines the folder must be shared (a network
// file system, a mounted volume).
type DirStore struct {
	Dir string
}

// Put writes data under its hash, atomically (journal.WriteAtomic),
// and does nothing when the file is already there.
func (s DirStore) Put(_ context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:])
	path := s.path(key)
	if _, err := os.Stat(path); err == nil {
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
	if len(key) != sha256.Size*2 {
		return nil, fmt.Errorf("payload store %s: %q is not a payload key", s.Dir, key)
	}
	data, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("payload %s is not in the payload store %s: every worker and client of a task queue must use the same store (a shared folder, --payloads)", key, s.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("payload store %s: %w", s.Dir, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != key {
		return nil, fmt.Errorf("payload %s in the payload store %s is damaged (its content does not match its name)", key, s.Dir)
	}
	return data, nil
}

func (s DirStore) path(key string) string { return filepath.Join(s.Dir, key[:2], key) }

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
