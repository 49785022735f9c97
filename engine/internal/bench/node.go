package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// nodeSide is the Node.js worker design: one long-lived node process
// running testdata/bench/node/bench.mjs, asked for one measurement at a
// time over its stdin and answering on its stdout (see bench.mjs).
type nodeSide struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Scanner
	version string
}

// nodeRequest is one line to bench.mjs.
type nodeRequest struct {
	Op     string `json:"op"`
	Script string `json:"script"`
	Runs   int    `json:"runs,omitempty"`
	Lanes  int    `json:"lanes,omitempty"`
	Ms     int64  `json:"ms,omitempty"`
	Rounds int    `json:"rounds,omitempty"`
}

// nodeReply is bench.mjs's answer; which fields are set depends on the op.
type nodeReply struct {
	Error    string    `json:"error"`
	Us       []float64 `json:"us"`
	Runs     int       `json:"runs"`
	Seconds  float64   `json:"seconds"`
	RSSMiB   float64   `json:"rssMiB"`
	AddedMiB float64   `json:"addedMiB"`
}

// startNode starts bench.mjs from dir with the node binary named by node
// (a name on PATH or a path).
func startNode(node, dir string) (*nodeSide, error) {
	path, err := exec.LookPath(node)
	if err != nil {
		return nil, fmt.Errorf("the comparison needs Node.js: %w; install node, or pass -node PATH", err)
	}
	version, err := exec.Command(path, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", path, err)
	}
	cmd := exec.Command(path, filepath.Join(dir, "bench.mjs"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &nodeSide{cmd: cmd, in: in, out: sc, version: strings.TrimSpace(string(version))}, nil
}

// ask sends one request and waits for its reply.
func (n *nodeSide) ask(req nodeRequest) (nodeReply, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return nodeReply{}, err
	}
	if _, err := n.in.Write(append(line, '\n')); err != nil {
		return nodeReply{}, fmt.Errorf("node side (%s): %w", req.Op, err)
	}
	if !n.out.Scan() {
		err := n.out.Err()
		if err == nil {
			err = errors.New("it exited")
		}
		return nodeReply{}, fmt.Errorf("node side (%s): no answer: %w", req.Op, err)
	}
	var rep nodeReply
	if err := json.Unmarshal(n.out.Bytes(), &rep); err != nil {
		return nodeReply{}, fmt.Errorf("node side (%s): unreadable answer %q: %w", req.Op, n.out.Text(), err)
	}
	if rep.Error != "" {
		return rep, fmt.Errorf("node side (%s): %s", req.Op, rep.Error)
	}
	return rep, nil
}

func (n *nodeSide) start(runs int) ([]float64, error) {
	rep, err := n.ask(nodeRequest{Op: "start", Script: trivialScript, Runs: runs})
	return rep.Us, err
}

func (n *nodeSide) throughput(lanes int, d time.Duration) (float64, error) {
	rep, err := n.ask(nodeRequest{Op: "throughput", Script: fourScript, Lanes: lanes, Ms: d.Milliseconds()})
	if err != nil || rep.Seconds <= 0 {
		return 0, err
	}
	return float64(rep.Runs) / rep.Seconds, nil
}

func (n *nodeSide) fanOut(agents, rounds int) ([]float64, error) {
	rep, err := n.ask(nodeRequest{Op: "fanout", Script: fanOutScript(agents), Rounds: rounds})
	return perAgent(rep.Us, agents), err
}

func (n *nodeSide) suspended(runs int) (memory, error) {
	rep, err := n.ask(nodeRequest{Op: "suspended", Script: trivialScript, Runs: runs})
	return memory{Runs: rep.Runs, RSSMiB: rep.RSSMiB, AddedMiB: rep.AddedMiB}, err
}

// close ends the node process: closing its stdin ends its read loop.
func (n *nodeSide) close() error {
	_ = n.in.Close()
	done := make(chan error, 1)
	go func() { done <- n.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		return <-done
	}
}

// perAgent turns whole-run microseconds into microseconds per agent.
func perAgent(us []float64, agents int) []float64 {
	out := make([]float64, len(us))
	for i, u := range us {
		out[i] = u / float64(agents)
	}
	return out
}

// findNodeDir returns testdata/bench/node of the repository that holds the
// working directory.
func findNodeDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, "testdata", "bench", "node")
		if _, err := os.Stat(filepath.Join(cand, "bench.mjs")); err == nil {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testdata/bench/node/bench.mjs not found above the working directory: run the command inside the wfrun repository, or pass -node-dir")
		}
		dir = parent
	}
}
