package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// endpoint is an OpenAI-compatible chat completion server on loopback
// whose every answer waits delay. A worker reaches it at
// URL/WORKER/v1/chat/completions (baseURL), so it counts per worker as
// well as per prompt (the content of the request's last user message).
type endpoint struct {
	delay time.Duration
	srv   *http.Server
	url   string
	done  chan struct{} // closed when Serve has returned

	mu      sync.Mutex
	prompts map[string]*promptCount
	workers map[string]*workerCount
	held    map[string]bool // workers whose requests are never answered
	changed chan struct{}   // closed and replaced on every change
}

// promptCount is what the endpoint saw of one prompt.
type promptCount struct {
	Asked    int // requests that arrived
	Answered int // answers written in full
}

// workerCount is what the endpoint saw of one worker.
type workerCount struct {
	Asked, Answered, Cut int // Cut: requests whose caller went away before the answer
	InFlight             int // requests that arrived and are not answered or cut yet
	Held                 int // of those, requests kept unanswered by hold
}

// newEndpoint starts the endpoint on a free loopback port.
func newEndpoint(delay time.Duration) (*endpoint, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the model endpoint cannot listen on loopback: %w", err)
	}
	e := &endpoint{delay: delay, url: "http://" + l.Addr().String(), done: make(chan struct{}),
		prompts: map[string]*promptCount{}, workers: map[string]*workerCount{}, held: map[string]bool{}, changed: make(chan struct{})}
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(e.done)
		_ = e.srv.Serve(l)
	}()
	return e, nil
}

// baseURL is the --base-url of the worker named worker.
func (e *endpoint) baseURL(worker string) string { return e.url + "/" + worker + "/v1" }

// close stops the endpoint; requests in flight are cut.
func (e *endpoint) close() {
	_ = e.srv.Close()
	<-e.done
}

// chatRequest is the part of a chat completion request the endpoint reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	worker, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !ok || rest != "v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "this endpoint serves POST /WORKER/v1/chat/completions only", http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
		http.Error(w, "the body is not a chat completion request: "+err.Error(), http.StatusBadRequest)
		return
	}
	prompt := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			prompt = m.Content
		}
	}
	e.update(func() {
		p := e.prompt(prompt)
		p.Asked++
		wc := e.worker(worker)
		wc.Asked++
		wc.InFlight++
	})
	t := time.NewTimer(e.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	parked := false
	e.update(func() {
		if r.Context().Err() == nil && e.held[worker] {
			parked = true
			e.worker(worker).Held++
		}
	})
	if parked || r.Context().Err() != nil {
		// A held worker's request waits for its caller to go away.
		<-r.Context().Done()
		e.update(func() {
			wc := e.worker(worker)
			if parked {
				wc.Held--
			}
			wc.InFlight--
			wc.Cut++
		})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-scalebench", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "done: " + prompt}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	_, err := w.Write(body)
	e.update(func() {
		wc := e.worker(worker)
		wc.InFlight--
		if err != nil {
			wc.Cut++
			return
		}
		wc.Answered++
		e.prompt(prompt).Answered++
	})
}

// hold stops answering worker: its requests, those in flight and those
// to come, stay in flight until their caller goes away.
func (e *endpoint) hold(worker string) {
	e.update(func() { e.held[worker] = true })
}

// prompt and worker return the count of a prompt or a worker; e.mu held.
func (e *endpoint) prompt(p string) *promptCount {
	c := e.prompts[p]
	if c == nil {
		c = &promptCount{}
		e.prompts[p] = c
	}
	return c
}

func (e *endpoint) worker(w string) *workerCount {
	c := e.workers[w]
	if c == nil {
		c = &workerCount{}
		e.workers[w] = c
	}
	return c
}

// update changes the counts under the lock and wakes every waiter.
func (e *endpoint) update(f func()) {
	e.mu.Lock()
	f()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// counts is a copy of what the endpoint has seen.
type counts struct {
	Prompts map[string]promptCount
	Workers map[string]workerCount
}

func (e *endpoint) snapshot() counts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshotLocked()
}

func (e *endpoint) snapshotLocked() counts {
	c := counts{Prompts: make(map[string]promptCount, len(e.prompts)), Workers: make(map[string]workerCount, len(e.workers))}
	for k, v := range e.prompts {
		c.Prompts[k] = *v
	}
	for k, v := range e.workers {
		c.Workers[k] = *v
	}
	return c
}

// waitFor blocks until cond holds of the counts, woken by every change,
// or until ctx is done.
func (e *endpoint) waitFor(ctx context.Context, cond func(counts) bool) error {
	for {
		e.mu.Lock()
		c, changed := e.snapshotLocked(), e.changed
		e.mu.Unlock()
		if cond(c) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
