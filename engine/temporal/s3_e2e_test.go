package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/testkit/s3test"
)

// startS3 starts the S3-compatible server of s3test on a loopback port
// and puts its credentials in the standard AWS environment (and nothing
// of the machine's own AWS configuration), as an operator would.
func startS3(t *testing.T) *s3test.Server {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t)
	return srv
}

// openS3Store opens the store of srv, closed at cleanup.
func openS3Store(t *testing.T, url string) *wftemporal.BlobStore {
	t.Helper()
	s, err := wftemporal.OpenPayloadStore(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	b := s.(*wftemporal.BlobStore)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestS3Store_KeepsPayloadsByContentInARealS3Server(t *testing.T) {
	srv := startS3(t)
	ctx := context.Background()
	store := openS3Store(t, srv.URL)
	data := []byte(strings.Repeat("an agent's long answer ", 50_000)) // 1.1 MB
	key, err := store.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := store.Put(ctx, data); err != nil || again != key {
		t.Fatalf("put again: %s %v", again, err)
	}
	got, err := store.Get(ctx, key)
	if err != nil || string(got) != string(data) {
		t.Fatalf("get: %d bytes, %v", len(got), err)
	}
	// The object is a file of the server's folder, named as in a DirStore.
	file := filepath.Join(srv.Root, "payloads", key[:2], key)
	if st, err := os.Stat(file); err != nil || st.Size() != int64(len(data)) {
		t.Fatalf("the server's file %s: %v", file, err)
	}
	// Something else in the bucket is neither listed nor deleted.
	if err := os.WriteFile(filepath.Join(srv.Root, "payloads", "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := store.List(ctx, func(p wftemporal.StoredPayload) error {
		keys = append(keys, p.Key)
		if p.Size != int64(len(data)) || time.Since(p.Written) > time.Hour {
			t.Errorf("listed %+v", p)
		}
		return nil
	}); err != nil || len(keys) != 1 || keys[0] != key {
		t.Fatalf("listed %v, %v", keys, err)
	}
	if err := os.WriteFile(file, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The server's own checksum of the object catches it first; the
	// store's hash would otherwise.
	if _, err := store.Get(ctx, key); err == nil || !(strings.Contains(err.Error(), "damaged") || strings.Contains(err.Error(), "checksum did not match")) {
		t.Fatalf("a tampered payload: %v", err)
	}
	if err := store.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(ctx, key); err == nil || !strings.Contains(err.Error(), "is not in the payload store") {
		t.Fatalf("a deleted payload: %v", err)
	}
	// Credentials come from the environment; wrong ones are refused, and
	// no message shows the secret.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-"+srv.Secret)
	wrong := openS3Store(t, srv.URL)
	if _, err := wrong.Put(ctx, data); err == nil || strings.Contains(err.Error(), srv.Secret) || !strings.Contains(err.Error(), "payload store s3://payloads") {
		t.Fatalf("wrong credentials: %v", err)
	}
}

// gated is a provider whose agents with a prompt starting "hold" wait
// until release is closed (or their context ends), and the others answer
// as the fake does.
type gated struct {
	agentapi.Provider
	started chan string
	release chan struct{}
}

func (p *gated) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	if strings.HasPrefix(req.Prompt, "hold") {
		p.started <- req.Prompt
		select {
		case <-p.release:
		case <-ctx.Done():
			return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
		}
	}
	return p.Provider.Run(ctx, req)
}

// refs are the payload keys the history of workflow id refers to.
func refs(t *testing.T, cl *cluster, id string) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	wftemporal.PayloadRefs(history(t, cl.c, id).ProtoReflect(), keys)
	return keys
}

func stored(t *testing.T, s wftemporal.SweepableStore) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	if err := s.List(context.Background(), func(p wftemporal.StoredPayload) error {
		keys[p.Key] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestEndToEnd_PayloadsInS3AndGCDeletesOnlyThoseOfDeletedHistories(t *testing.T) {
	srv := startS3(t)
	store := openS3Store(t, srv.URL)
	cl := newClusterWith(t, store)
	ctx := context.Background()
	big := strings.Repeat("0123456789abcdef", 8<<10) // 128 KiB
	reply, _ := json.Marshal(big)
	p := &gated{Provider: fake.New(fake.Options{Rules: &fake.Rules{Rules: []fake.Rule{{Match: "big", Reply: reply}}}}),
		started: make(chan string, 4), release: make(chan struct{})}
	releaseOnce := sync.OnceFunc(func() { close(p.release) })
	t.Cleanup(releaseOnce)
	cl.worker(p)
	client := cl.client()

	// Run A: its args, its agent's answer and its value are over 4 KiB, so
	// the client, the worker and the client again go through S3.
	a, err := client.Start(ctx, engine.WorkflowStartRequest{Parent: "e2e", Args: mustJSON(map[string]string{"pad": "A" + big}),
		Script: `export const meta = {name: 'big', description: 'x'}
const a = await agent('big answer please')
return {len: a.length, same: 'A' + a === args.pad, echo: a}`})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Wait(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Len  int
		Same bool
		Echo string
	}
	if err := json.Unmarshal(res.Value, &v); err != nil || v.Len != len(big) || !v.Same || v.Echo != big {
		t.Fatalf("value len %d same %v err %v", v.Len, v.Same, err)
	}
	largest := 0
	for _, ev := range history(t, cl.c, a.ID()).GetEvents() {
		largest = max(largest, proto.Size(ev))
	}
	if largest > wftemporal.PayloadInline+2048 {
		t.Fatalf("the largest history event is %d bytes; payloads over %d bytes belong in the store", largest, wftemporal.PayloadInline)
	}
	refsA := refs(t, cl, a.ID())
	inStore := stored(t, store)
	if len(refsA) < 3 { // the request, the agent's answer, the result
		t.Fatalf("run A's history refers to %d payloads", len(refsA))
	}
	for k := range refsA {
		if !inStore[k] {
			t.Fatalf("run A's payload %s is not in the S3 bucket", k)
		}
	}

	// Run B is live: its agent waits, its large args are in S3.
	b, err := client.Start(ctx, engine.WorkflowStartRequest{Parent: "e2e", Args: mustJSON(map[string]string{"pad": "B" + big}),
		Script: `export const meta = {name: 'live', description: 'x'}
const a = await agent('hold on')
return {len: args.pad.length, answer: a.length}`})
	if err != nil {
		t.Fatal(err)
	}
	<-p.started
	refsB := refs(t, cl, b.ID())
	if len(refsB) == 0 {
		t.Fatal("run B's history refers to no payload")
	}

	// Nothing is collected while every history is there, or while the
	// payloads are younger than the default minimum age.
	if r, err := wftemporal.CollectPayloads(ctx, cl.c, store, wftemporal.GCOptions{}); err != nil || len(r.Deleted) != 0 || r.Recent+r.Referenced != r.Payloads {
		t.Fatalf("gc at the default minimum age: %+v %v", r, err)
	}

	// Run A's history is deleted.
	if _, err := cl.c.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
		Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: a.ID()}}); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := cl.c.DescribeWorkflowExecution(ctx, a.ID(), "")
		var gone *serviceerror.NotFound
		if errors.As(err, &gone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	want := map[string]bool{}
	for k := range refsA {
		if !refsB[k] {
			want[k] = true
		}
	}
	check := func(r wftemporal.GCResult, dry bool) {
		t.Helper()
		deleted := map[string]bool{}
		for _, k := range r.Deleted {
			deleted[k] = true
			if refsB[k] {
				t.Fatalf("gc (dry run %v) deletes %s, which the live run refers to", dry, k)
			}
		}
		for k := range want {
			if !deleted[k] {
				t.Fatalf("gc (dry run %v) keeps %s of the deleted run: %+v", dry, k, r)
			}
		}
		if r.DryRun != dry || r.Histories == 0 || r.Referenced < len(refsB) {
			t.Fatalf("gc (dry run %v): %+v", dry, r)
		}
	}
	dry, err := wftemporal.CollectPayloads(ctx, cl.c, store, wftemporal.GCOptions{MinAge: -1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	check(dry, true)
	if after := stored(t, store); len(after) != dry.Payloads {
		t.Fatalf("a dry run deleted: %d payloads, %d before", len(after), dry.Payloads)
	}
	r, err := wftemporal.CollectPayloads(ctx, cl.c, store, wftemporal.GCOptions{MinAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	check(r, false)
	after := stored(t, store)
	for k := range want {
		if after[k] {
			t.Fatalf("the deleted run's payload %s is still in the bucket", k)
		}
	}
	for k := range refsB {
		if !after[k] {
			t.Fatalf("the live run's payload %s was deleted", k)
		}
	}

	// The live run goes on and reads its payloads from S3.
	releaseOnce()
	res, err = b.Wait(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Len, Answer int }
	if err := json.Unmarshal(res.Value, &w); err != nil || w.Len != len(big)+1 || w.Answer == 0 {
		t.Fatalf("the live run's value %s: %v (%s)", res.Value, err, res.Error)
	}
}
