package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/s3test"
)

func TestTemporalE2E_AWorkerAndAClientShareAnS3PayloadStore(t *testing.T) {
	s3 := s3test.Start(t)
	url, bucket := s3.URL, s3.Bucket
	addr := startTemporalDev(t, "Temporal dev server at")
	bin := buildWfrun(t)
	home := t.TempDir()
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, s3.Environ()...)
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
