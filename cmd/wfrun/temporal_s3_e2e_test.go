package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// startS3 starts the S3-compatible server of WFRUN_S3_SERVER (versitygw,
// built from engine/temporal/s3server) on a loopback port over a fresh
// folder with the bucket "payloads", and returns the store's URL, the
// bucket's folder and the AWS environment of its credentials.
func startS3(t *testing.T) (url, bucket string, awsEnv []string) {
	t.Helper()
	bin := os.Getenv("WFRUN_S3_SERVER")
	if bin == "" {
		t.Skip("WFRUN_S3_SERVER is not set: build versitygw from the module engine/temporal/s3server (docs/scale-out.md) and name it there")
	}
	root := t.TempDir()
	bucket = filepath.Join(root, "payloads")
	if err := os.Mkdir(bucket, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	secret := hex.EncodeToString(key)
	cmd := exec.Command(bin, "--port", addr, "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID=wfrun-cli", "ROOT_SECRET_ACCESS_KEY="+secret)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-exited
	})
	for deadline := time.Now().Add(time.Minute); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil && strings.Contains(out.String(), "http://"+addr) {
			c.Close()
			break
		}
		if err == nil {
			c.Close()
		}
		select {
		case err := <-exited:
			t.Fatalf("the S3 server exited: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the S3 server did not come up on %s:\n%s", addr, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	none := filepath.Join(root, "none")
	return "s3://payloads?endpoint=http://" + addr + "&region=us-east-1", bucket, []string{
		"AWS_ACCESS_KEY_ID=wfrun-cli", "AWS_SECRET_ACCESS_KEY=" + secret,
		"AWS_CONFIG_FILE=" + none, "AWS_SHARED_CREDENTIALS_FILE=" + none, "AWS_EC2_METADATA_DISABLED=true"}
}

func TestTemporalE2E_AWorkerAndAClientShareAnS3PayloadStore(t *testing.T) {
	url, bucket, awsEnv := startS3(t)
	addr := startTemporalDev(t, "Temporal dev server at")
	bin := buildWfrun(t)
	home := t.TempDir()
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, awsEnv...)
	shared := []string{"--temporal", addr, "--task-queue", "cli-s3", "--payloads", url}

	wErr := startWorker(t, bin, env, "cli-s3", shared).stderr

	// The args are over 4 KiB: the client puts them in the bucket, and
	// the worker reads them from there.
	pad := strings.Repeat("s3 ", 4000)
	args, _ := json.Marshal(map[string]any{"n": 2, "pad": pad})
	run := exec.Command(bin, append([]string{"testdata/temporal.js", "--args", string(args)}, shared...)...)
	run.Env = env
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("wfrun --temporal: %v\nstdout:\n%s\nstderr:\n%s\nworker:\n%s", err, stdout.String(), stderr.String(), wErr.String())
	}
	var res engine.WorkflowResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.StopReason != engine.StopCompleted || res.AgentsSpawned != 6 {
		t.Fatalf("result %+v %v\n%s", res, err, stdout.String())
	}
	objects, _ := filepath.Glob(filepath.Join(bucket, "*", "*"))
	if len(objects) == 0 {
		t.Fatalf("the bucket holds no payload; worker:\n%s", wErr.String())
	}

	// gc over the same bucket: every payload is referenced by the run's
	// history (and recent), so a dry run would delete none.
	gc := exec.Command(bin, "temporal", "gc", "--temporal", addr, "--payloads", url, "--dry-run", "--min-age", "0")
	gc.Env = env
	out, err := gc.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "would delete 0 of ") {
		t.Fatalf("gc: %v\n%s", err, out)
	}
	// Without the credentials the store is refused, and says where.
	gc = exec.Command(bin, "temporal", "gc", "--temporal", addr, "--payloads", url, "--dry-run")
	gc.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "AWS_ACCESS_KEY_ID=wfrun-cli", "AWS_SECRET_ACCESS_KEY=wrong",
		"AWS_CONFIG_FILE=" + filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"), "AWS_EC2_METADATA_DISABLED=true"}
	out, err = gc.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot list the payload store") {
		t.Fatalf("gc with wrong credentials: %v\n%s", err, out)
	}
}
