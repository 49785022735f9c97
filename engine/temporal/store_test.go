package temporal_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// stores are the sweepable stores the contract test runs on, each over a
// fresh folder, with the path of a payload's file in it.
func stores(t *testing.T) map[string]func(t *testing.T) (wftemporal.SweepableStore, func(key string) string) {
	return map[string]func(t *testing.T) (wftemporal.SweepableStore, func(key string) string){
		"DirStore": func(t *testing.T) (wftemporal.SweepableStore, func(key string) string) {
			dir := t.TempDir()
			return wftemporal.DirStore{Dir: dir}, func(key string) string { return filepath.Join(dir, key[:2], key) }
		},
		"BlobStore": func(t *testing.T) (wftemporal.SweepableStore, func(key string) string) {
			dir := t.TempDir()
			b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
			if err != nil {
				t.Fatal(err)
			}
			s := wftemporal.NewBlobStore(b, "file://"+dir)
			t.Cleanup(func() { _ = s.Close() })
			return s, func(key string) string { return filepath.Join(dir, key[:2], key) }
		},
	}
}

func listed(t *testing.T, s wftemporal.SweepableStore) map[string]wftemporal.StoredPayload {
	t.Helper()
	out := map[string]wftemporal.StoredPayload{}
	if err := s.List(context.Background(), func(p wftemporal.StoredPayload) error {
		out[p.Key] = p
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStores_PutIsIdempotentByContentGetIsExactAndListAndDeleteSeeOnlyPayloads(t *testing.T) {
	ctx := context.Background()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s, file := open(t)
			data := []byte(strings.Repeat("payload ", 2000))
			sum := sha256.Sum256(data)
			key, err := s.Put(ctx, data)
			if err != nil || key != hex.EncodeToString(sum[:]) {
				t.Fatalf("put: %q %v", key, err)
			}
			if again, err := s.Put(ctx, data); err != nil || again != key {
				t.Fatalf("put again: %q %v", again, err)
			}
			got, err := s.Get(ctx, key)
			if err != nil || string(got) != string(data) {
				t.Fatalf("get: %d bytes, %v", len(got), err)
			}
			// Whatever else is in the store is not a payload: never listed,
			// so never collected.
			root := filepath.Dir(filepath.Dir(file(key)))
			for _, other := range []string{"notes.txt", filepath.Join(key[:2], "notakey"), filepath.Join("zz", key)} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, other)), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, other), []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			all := listed(t, s)
			if len(all) != 1 || all[key].Size != int64(len(data)) || time.Since(all[key].Written) > time.Hour {
				t.Fatalf("listed %+v", all)
			}
			// Put writes again a payload older than the refresh interval,
			// so that a run being started never refers to an old payload.
			old := time.Now().Add(-2 * time.Hour)
			if err := os.Chtimes(file(key), old, old); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(ctx, data); err != nil {
				t.Fatal(err)
			}
			if w := listed(t, s)[key].Written; !w.After(old.Add(time.Hour)) {
				t.Fatalf("an old payload put again was not written again: %v", w)
			}
			if err := s.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, key); err != nil {
				t.Fatalf("deleting a payload already gone: %v", err)
			}
			if _, err := s.Get(ctx, key); err == nil || !strings.Contains(err.Error(), "is not in the payload store") {
				t.Fatalf("get after delete: %v", err)
			}
			for _, f := range []string{"notes.txt", filepath.Join("zz", key)} {
				if _, err := os.Stat(filepath.Join(root, f)); err != nil {
					t.Fatalf("%s is gone: %v", f, err)
				}
			}
		})
	}
}

func TestStores_ADamagedPayloadOrAKeyThatIsAPathIsRefused(t *testing.T) {
	ctx := context.Background()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s, file := open(t)
			key, err := s.Put(ctx, []byte(strings.Repeat("z", 5000)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file(key), []byte("tampered"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, key); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("a tampered payload: %v", err)
			}
			// A key of the right length that is a path (a history is
			// untrusted input) is refused before any file is read.
			path := "../../../../../../../../../../../../../../../../../etc/passwd"
			path = strings.Repeat("/", 64-len(path)) + path
			for _, k := range []string{path, strings.ToUpper(key), "../" + key[3:]} {
				if _, err := s.Get(ctx, k); err == nil || !strings.Contains(err.Error(), "not a payload key") {
					t.Fatalf("get %q: %v", k, err)
				}
				if err := s.Delete(ctx, k); err == nil || !strings.Contains(err.Error(), "not a payload key") {
					t.Fatalf("delete %q: %v", k, err)
				}
			}
		})
	}
}

func TestOpenPayloadStore_TakesAFolderOrAURLAndSaysWhatIsWrongWithABadOne(t *testing.T) {
	// No AWS configuration of the machine's user is read.
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		spec string
		dir  string // a DirStore in this folder
		blob string // a BlobStore of this name
		err  string // or this error, which must not show "s3cr3t"
	}{
		{spec: "", dir: wftemporal.DefaultPayloadDir()},
		{spec: dir, dir: dir},
		{spec: "rel/folder", dir: "rel/folder"},
		{spec: "/data/a://b", dir: "/data/a://b"},
		{spec: "file://" + dir, dir: dir},
		{spec: "file://localhost" + dir, dir: dir},
		{spec: "file://rel/folder", err: "three slashes"},
		{spec: "file:///x?y=1", err: "three slashes"},
		{spec: "s3://bucket?endpoint=http://127.0.0.1:9&region=us-east-1", blob: "s3://bucket?endpoint=http://127.0.0.1:9&region=us-east-1"},
		{spec: "s3://bucket?region=eu-west-1&prefix=wfrun/payloads", blob: "s3://bucket?region=eu-west-1&prefix=wfrun/payloads"},
		{spec: "s3://bucket?region=x&ssetype=aws:kms&kmskeyid=k1", blob: "s3://bucket?region=x&ssetype=aws:kms&kmskeyid=…"},
		{spec: "s3://bucket?ssetype=rot13", err: "is not one of"},
		{spec: "s3://?region=x", err: "names no bucket"},
		{spec: "s3://AKIA:s3cr3t@bucket?region=x", err: "credentials in its URL"},
		{spec: "s3://bucket?secret=s3cr3t", err: "unknown query parameter"},
		{spec: "s3://bucket?use_path_style=maybe", err: "not true or false"},
		{spec: "gs://bucket", err: `the scheme "gs"`},
		{spec: "s3://a:s3cr3t@b c", err: "not a URL"},
	} {
		s, err := wftemporal.OpenPayloadStore(ctx, c.spec)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("%q: %v, want an error with %q and no secret", c.spec, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.spec, err)
		case c.dir != "":
			if d, ok := s.(wftemporal.DirStore); !ok || d.Dir != c.dir {
				t.Errorf("%q: %#v, want the folder %s", c.spec, s, c.dir)
			}
		default:
			b, ok := s.(*wftemporal.BlobStore)
			if !ok || b.String() != c.blob {
				t.Errorf("%q: %v, want %s", c.spec, s, c.blob)
			}
		}
		if cl, ok := s.(io.Closer); ok {
			_ = cl.Close()
		}
	}
}
