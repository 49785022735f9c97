package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// BlobStore is a PayloadStore in a bucket of an object store (any
// gocloud.dev/blob bucket: S3 and every S3-compatible server through
// OpenPayloadStore, or one the caller opens), one object per payload
// named KEY[:2]/KEY as DirStore names its files. Put is idempotent by
// content: a payload already there is not sent again (unless it is older
// than payloadRefresh, see StoredPayload.Written); Get returns exactly
// what was put, checked against its hash.
type BlobStore struct {
	bucket *blob.Bucket
	name   string
	close  func()
}

// NewBlobStore returns a BlobStore over bucket; name is how messages name
// it (never a secret). Close closes the bucket.
func NewBlobStore(bucket *blob.Bucket, name string) *BlobStore {
	return &BlobStore{bucket: bucket, name: name}
}

// Put writes data under its hash unless an object of that name and size
// is there and recent.
func (s *BlobStore) Put(ctx context.Context, data []byte) (string, error) {
	key := keyOf(data)
	name := objectName(key)
	attrs, err := s.bucket.Attributes(ctx, name)
	switch {
	case err == nil && attrs.Size == int64(len(data)) && time.Since(attrs.ModTime) < payloadRefresh:
		return key, nil
	case err != nil && gcerrors.Code(err) != gcerrors.NotFound:
		return "", s.fail(err)
	}
	if err := s.bucket.WriteAll(ctx, name, data, &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		return "", s.fail(err)
	}
	return key, nil
}

// Get reads the payload of key and checks it against its hash.
func (s *BlobStore) Get(ctx context.Context, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("payload store %s: %q is not a payload key", s.name, key)
	}
	data, err := s.bucket.ReadAll(ctx, objectName(key))
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, missingPayload(key, s.name)
	}
	if err != nil {
		return nil, s.fail(err)
	}
	if keyOf(data) != key {
		return nil, damagedPayload(key, s.name)
	}
	return data, nil
}

// List calls fn with every payload object of the bucket; objects not
// named like payloads are skipped, never deleted.
func (s *BlobStore) List(ctx context.Context, fn func(StoredPayload) error) error {
	it := s.bucket.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.fail(err)
		}
		key := keyOfObject(obj.Key)
		if key == "" || obj.IsDir {
			continue
		}
		if err := fn(StoredPayload{Key: key, Size: obj.Size, Written: obj.ModTime}); err != nil {
			return err
		}
	}
}

// Delete removes the object of key.
func (s *BlobStore) Delete(ctx context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("payload store %s: %q is not a payload key", s.name, key)
	}
	if err := s.bucket.Delete(ctx, objectName(key)); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return s.fail(err)
	}
	return nil
}

// Close closes the bucket and the connections it keeps.
func (s *BlobStore) Close() error {
	err := s.bucket.Close()
	if s.close != nil {
		s.close()
	}
	return err
}

// String names the store in messages: its URL without credentials.
func (s *BlobStore) String() string { return s.name }

func (s *BlobStore) fail(err error) error {
	return fmt.Errorf("payload store %s: %w", s.name, err)
}

// OpenPayloadStore opens the payload store that spec names:
//
//   - "" — a DirStore in DefaultPayloadDir;
//   - a path, or file:///PATH — a DirStore in that folder;
//   - s3://BUCKET?endpoint=URL&region=R — a BlobStore in a bucket of S3 or
//     of any S3-compatible server. Credentials come from the standard AWS
//     environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE
//     and the shared files, a role), never from the URL. Parameters:
//     endpoint (the server, http:// or https://; none for AWS itself),
//     region, prefix (a folder of the bucket for the payloads),
//     use_path_style (default true when endpoint is given: most
//     S3-compatible servers want BUCKET in the path), ssetype and
//     kmskeyid (server-side encryption), and the others of
//     gocloud.dev/aws.V2ConfigFromURLParams (profile, fips, dualstack, …).
//
// Close a store that is an io.Closer when done with it.
func OpenPayloadStore(ctx context.Context, spec string) (SweepableStore, error) {
	if spec == "" {
		return DirStore{Dir: DefaultPayloadDir()}, nil
	}
	scheme, _, isURL := strings.Cut(spec, "://")
	if !isURL || !isScheme(scheme) {
		return DirStore{Dir: spec}, nil
	}
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("the payload store %q is not a URL: %v; give a folder, file:///FOLDER or s3://BUCKET?endpoint=…", redactURL(spec), errors.Unwrap(err))
	}
	switch scheme {
	case "file":
		if (u.Host != "" && u.Host != "localhost") || u.Path == "" || u.RawQuery != "" {
			return nil, fmt.Errorf("the payload store %s is not a folder's URL: write file:///ABSOLUTE/FOLDER (three slashes), or the folder's path alone", redactURL(spec))
		}
		return DirStore{Dir: filepath.FromSlash(u.Path)}, nil
	case s3blob.Scheme:
		s, err := openS3(ctx, u, redactURL(spec))
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("the payload store %s has the scheme %q; wfrun's stores are a folder (a path or file:///FOLDER) and s3://BUCKET?endpoint=… (S3 and S3-compatible servers)", redactURL(spec), scheme)
}

// isScheme says whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, +, - and .), so that a folder with :// in its path is
// still a folder.
func isScheme(s string) bool {
	for i, c := range s {
		letter := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// openS3 opens an s3:// URL with an HTTP transport of its own, which
// Close closes.
func openS3(ctx context.Context, u *url.URL, name string) (*BlobStore, error) {
	if u.User != nil {
		return nil, fmt.Errorf("the payload store %s has credentials in its URL; give them in the environment instead (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)", name)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("the payload store %s names no bucket: write s3://BUCKET?endpoint=…", name)
	}
	q := u.Query()
	prefix := q.Get("prefix")
	q.Del("prefix")
	pathStyle := q.Get("endpoint") != ""
	for _, k := range []string{"use_path_style", "s3ForcePathStyle"} {
		if v := q.Get(k); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("the payload store %s: %s=%q is not true or false", name, k, v)
			}
			pathStyle = b
			q.Del(k)
		}
	}
	bopts := &s3blob.Options{}
	if v := q.Get("ssetype"); v != "" {
		for _, t := range types.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				bopts.EncryptionType = t
			}
		}
		if bopts.EncryptionType == "" {
			return nil, fmt.Errorf("the payload store %s: ssetype=%q is not one of %v", name, v, types.ServerSideEncryptionAes256.Values())
		}
		q.Del("ssetype")
	}
	if v := q.Get("kmskeyid"); v != "" {
		bopts.KMSEncryptionID = v
		q.Del("kmskeyid")
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("the payload store %s: %w", name, err)
	}
	tr := awshttp.NewBuildableClient().GetTransport()
	cfg.HTTPClient = &http.Client{Transport: tr}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = pathStyle })
	bopts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	bucket, err := s3blob.OpenBucket(ctx, client, u.Host, bopts)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("the payload store %s: %w", name, err)
	}
	if prefix != "" {
		bucket = blob.PrefixedBucket(bucket, strings.TrimSuffix(prefix, "/")+"/")
	}
	return &BlobStore{bucket: bucket, name: name, close: tr.CloseIdleConnections}, nil
}

// redactURL is spec without a password or the value of a query parameter
// not known to be harmless, for messages.
func redactURL(spec string) string {
	u, err := url.Parse(spec)
	if err != nil {
		// Not a URL: drop whatever stands between the scheme and an @, and
		// the query.
		spec, _, _ = strings.Cut(spec, "?")
		if j, i := strings.Index(spec, "://"), strings.LastIndex(spec, "@"); j >= 0 && i > j {
			return spec[:j+3] + "…" + spec[i:]
		}
		return spec
	}
	changed := u.User != nil
	if changed {
		u.User = url.User("…")
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, kv := range parts {
			if k, _, _ := strings.Cut(kv, "="); !harmlessParams[k] {
				parts[i], changed = k+"=…", true
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if !changed {
		return spec
	}
	return u.String()
}

// harmlessParams are the query parameters of store URLs whose values
// messages may show.
var harmlessParams = map[string]bool{"endpoint": true, "region": true, "prefix": true, "use_path_style": true,
	"s3ForcePathStyle": true, "profile": true, "fips": true, "dualstack": true,
	"hostname_immutable": true, "awssdk": true, "ssetype": true, "anonymous": true,
	"request_checksum_calculation": true, "response_checksum_validation": true, "rate_limiter_capacity": true}

// ensure the stores stay what CollectPayloads needs.
var (
	_ SweepableStore = DirStore{}
	_ SweepableStore = (*BlobStore)(nil)
)
