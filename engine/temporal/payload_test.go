package temporal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestPayloads_LargeOnesGoToTheStoreAndComeBackTheSame(t *testing.T) {
	store := wftemporal.DirStore{Dir: t.TempDir()}
	dc := wftemporal.NewDataConverter(store)
	for _, size := range []int{10, wftemporal.PayloadInline - 100, wftemporal.PayloadInline + 1, 3 << 20} {
		in := strings.Repeat("x", size)
		p, err := dc.ToPayload(in)
		if err != nil {
			t.Fatal(err)
		}
		ref := string(p.GetMetadata()[converter.MetadataEncoding]) == "wfrun/payload-ref"
		if ref != (size > wftemporal.PayloadInline-100) || (ref && len(p.GetData()) > 200) {
			t.Fatalf("%d bytes: reference %v, %d bytes in the history", size, ref, len(p.GetData()))
		}
		var out string
		if err := dc.FromPayload(p, &out); err != nil || out != in {
			t.Fatalf("%d bytes: came back %d bytes, %v", size, len(out), err)
		}
	}
}

func TestPayloads_AMissingOrDamagedPayloadIsAnErrorThatSaysWhy(t *testing.T) {
	dir := t.TempDir()
	store := wftemporal.DirStore{Dir: dir}
	p, err := wftemporal.NewDataConverter(store).ToPayload(strings.Repeat("y", 10000))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(files) != 1 {
		t.Fatalf("%d files in the store", len(files))
	}
	if err := os.WriteFile(files[0], []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out string
	if err := wftemporal.NewDataConverter(store).FromPayload(p, &out); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a tampered payload: %v", err)
	}
	other := wftemporal.DirStore{Dir: t.TempDir()}
	if err := wftemporal.NewDataConverter(other).FromPayload(p, &out); err == nil || !strings.Contains(err.Error(), "must use the same store") {
		t.Fatalf("another store: %v", err)
	}
	if _, err := other.Get(context.Background(), "../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "not a payload key") {
		t.Fatalf("a path for a key: %v", err)
	}
}

// FuzzPayloadDecode feeds the data converter payloads as a history could
// hold them, references included: it returns an error or a value, and never
// reads outside its store or panics.
func FuzzPayloadDecode(f *testing.F) {
	f.Add([]byte("wfrun/payload-ref"), []byte(`{"key":"00","size":3}`))
	f.Add([]byte("wfrun/payload-ref"), []byte(`{"key":"`+strings.Repeat("ab", 32)+`","size":3}`))
	f.Add([]byte("json/plain"), []byte(`"hello"`))
	f.Add([]byte("wfrun/payload-ref"), []byte(`{"key":"../../x"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, encoding, data []byte) {
		dc := wftemporal.NewDataConverter(wftemporal.DirStore{Dir: dir})
		p := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: encoding}, Data: data}
		var v any
		_ = dc.FromPayload(p, &v)
	})
}
