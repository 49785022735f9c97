package ui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/ui"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	id, name, data string
}

// stream reads server-sent events from a response, one at a time.
type stream struct {
	t      *testing.T
	sc     *bufio.Scanner
	events chan sseEvent
}

func openStream(t *testing.T, ctx context.Context, url, lastID string) (*stream, *http.Response) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{t: t, sc: bufio.NewScanner(resp.Body), events: make(chan sseEvent, 64)}
	go func() {
		defer close(s.events)
		var ev sseEvent
		for s.sc.Scan() {
			line := s.sc.Text()
			switch {
			case line == "":
				if ev.data != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			}
		}
	}()
	return s, resp
}

func (s *stream) next(what string) sseEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatalf("the stream ended before %s", what)
		}
		return ev
	case <-time.After(10 * time.Second):
		s.t.Fatalf("no event within 10s: wanted %s", what)
	}
	return sseEvent{}
}

func TestTheEventStreamFollowsTheRunsFileAsItGrows(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	// A run folder that another process writes: here, the test.
	const id = "wf_00000000000000f1"
	folder, err := journal.Create(r.runs, id)
	if err != nil {
		t.Fatal(err)
	}
	r.abandoned(id, "followed") // any row will do: the stream reads the file
	path := folder.Path(journal.EventsFile)
	line := func(typ, extra string) string {
		return `{"type":"` + typ + `","runId":"` + id + `","time":"2026-01-01T00:00:00Z"` + extra + "}\n"
	}
	first := line("run.start", `,"concurrency":2`)
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, resp := openStream(t, ctx, srv.URL+"/runs/"+id+"/events?from=0", "")
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	ev := s.next("run.start")
	if ev.id != strconv.Itoa(len(first)) || !strings.Contains(ev.data, `"run.start"`) {
		t.Fatalf("the first event: %+v", ev)
	}

	// A line arrives in two writes: it is sent once it is whole. A line
	// that is not JSON is skipped.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := line("agent.start", `,"agentId":"ag_1","seq":1,"label":"a"`)
	f.WriteString("garbage\n" + start[:20])
	time.Sleep(60 * time.Millisecond)
	f.WriteString(start[20:])
	ev = s.next("agent.start")
	if !strings.Contains(ev.data, `"agent.start"`) || ev.id != strconv.Itoa(len(first)+len("garbage\n")+len(start)) {
		t.Fatalf("the second event: %+v", ev)
	}
	var parsed engine.Event
	if json.Unmarshal([]byte(ev.data), &parsed) != nil || parsed.Seq != 1 {
		t.Fatalf("the event's data is not the line: %q", ev.data)
	}
	cancel()

	// A browser that reconnects says where it was: it gets what came after.
	end := line("agent.end", `,"agentId":"ag_1","seq":1,"outcome":"completed"`)
	f.WriteString(end)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	s2, resp2 := openStream(t, ctx2, srv.URL+"/runs/"+id+"/events", ev.id)
	defer resp2.Body.Close()
	if ev := s2.next("agent.end"); !strings.Contains(ev.data, `"agent.end"`) {
		t.Fatalf("after reconnecting: %+v", ev)
	}
	if a := r.get("/runs/" + id + "/events?from=-3"); a.code != http.StatusBadRequest {
		t.Errorf("a negative offset: %d", a.code)
	}
}

func TestALiveRunsStreamCarriesItsEventsUntilItEnds(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	other := r.engine(`{"rules": [{"match": "^Step", "delayMs": 100}]}`)
	run, err := other.Start(context.Background(), engine.WorkflowStartRequest{Parent: "test",
		Script: `export const meta = { name: 'steps', description: 'three steps' }
for (const n of [1, 2, 3]) await agent('Step ' + n, { label: 'step ' + n })`})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, resp := openStream(t, ctx, srv.URL+"/runs/"+run.ID()+"/events?from=0", "")
	defer resp.Body.Close()
	var types []string
	for {
		ev := s.next("run.end")
		var e engine.Event
		if err := json.Unmarshal([]byte(ev.data), &e); err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type))
		if e.Type == engine.EventRunEnd {
			break
		}
	}
	if got := strings.Join(types, " "); got != "run.start agent.start agent.end agent.start agent.end agent.start agent.end run.end" {
		t.Errorf("the stream carried %s", got)
	}
	run.Wait()
}

func TestTheListsStreamSaysWhenTheLedgerChanges(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, resp := openStream(t, ctx, srv.URL+"/events", "")
	defer resp.Body.Close()
	// The stream read the empty ledger before it answered: no sleep.
	r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.')`, "", 0)
	if ev := s.next("changed"); ev.name != "changed" {
		t.Fatalf("the list's stream sent %+v", ev)
	}
	rows, _ := r.eng.Ledger().List(ctx, ledger.Filter{})
	if len(rows) != 1 {
		t.Fatalf("%d runs", len(rows))
	}
}

func TestServeEndsTheStreamsWhenItStops(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	r.abandoned("wf_00000000000000f2", "followed")
	l, err := listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- r.srv.Serve(ctx, l) }()
	s, resp := openStream(t, context.Background(), "http://"+l.Addr().String()+"/events", "")
	defer resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return with a stream open")
	}
	for range s.events { // the stream ends: its response is closed
	}
}

func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
