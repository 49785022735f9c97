package runtime_test

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

func TestParallel_KeepsInputOrderAndThrowingThunkIsNull(t *testing.T) {
	rules := withRules(t, `{"rules":[{"match":"^first","delayMs":60},{"match":"^second","delayMs":1}]}`)
	out, _ := runScript(t, `
return await parallel([
  () => agent('first'),
  () => agent('second'),
  () => { throw new Error('sync throw') },
  async () => { throw new Error('async throw') },
  () => 'plain value',
])`, rules)
	wantValue(t, out, `["first","second",null,null,"plain value"]`)
}

func TestParallel_EmptyListIsEmptyArray(t *testing.T) {
	out, _ := runScript(t, `return await parallel([])`)
	wantValue(t, out, `[]`)
}

func TestPipeline_PassesPrevItemAndIndex(t *testing.T) {
	out, _ := runScript(t, `
return await pipeline(['a', 'b'],
  (prev, item, index) => prev + ':' + item + ':' + index,
  async (prev, item, index) => prev + '|' + item + index)`)
	wantValue(t, out, `["a:a:0|a0","b:b:1|b1"]`)
}

func TestPipeline_ThrowingStageDropsItemAndSkipsRemainingStages(t *testing.T) {
	out, _ := runScript(t, `
const ran = []
const r = await pipeline([1, 2, 3],
  (x) => { if (x === 2) throw new Error('no'); return x * 10 },
  (x) => { ran.push(x); return x + 1 })
return {r, ran}`)
	wantValue(t, out, `{"r":[11,null,31],"ran":[10,30]}`)
}

func TestPipeline_NoBarrierBetweenStages(t *testing.T) {
	// Item "slow" is still in stage 1 while item "fast" runs stages 2 and 3.
	rules := withRules(t, `{"rules":[{"match":"^s1 slow","delayMs":300}]}`)
	out, rec := runScript(t, `
return await pipeline(['fast', 'slow'],
  (item) => agent('s1 ' + item),
  (prev, item) => agent('s2 ' + item),
  (prev, item) => agent('s3 ' + item))`, rules)
	wantValue(t, out, `["s3 fast","s3 slow"]`)
	var order []string
	for _, ev := range rec.Events() {
		if ev.Type == EventAgentEnd {
			order = append(order, ev.Label)
		}
	}
	joined := strings.Join(order, ",")
	if !strings.HasPrefix(joined, "s1 fast,s2 fast,s3 fast,s1 slow") {
		t.Fatalf("end order %s: a barrier held item fast back", joined)
	}
}

func TestCombinators_ItemCapIsFatal(t *testing.T) {
	for _, call := range []string{
		`parallel(Array.from({length: 11}, () => () => 1))`,
		`pipeline(Array.from({length: 11}, (_, i) => i), x => x)`,
	} {
		out, _ := runScript(t, `try { await `+call+` } catch (e) {} return 'went on'`, func(c *Config) { c.MaxItems = 10 })
		wantCode(t, out, wferr.ItemCap, "the limit is 10")
	}
}

func TestCombinators_DefaultItemCapIs4096(t *testing.T) {
	out, _ := runScript(t, `return (await parallel(Array.from({length: 4096}, (_, i) => () => i))).length`)
	wantValue(t, out, `4096`)
	out, _ = runScript(t, `return await parallel(Array.from({length: 4097}, (_, i) => () => i))`)
	wantCode(t, out, wferr.ItemCap, "4097 items")
}

func TestGate_IsFIFOAndNeverExceeded(t *testing.T) {
	p := newBlocking()
	done := make(chan []Event)
	go func() {
		out, rec := runScript(t, `return await Promise.all(Array.from({length: 12}, (_, i) => agent('task ' + i)))`,
			withProvider(p), func(c *Config) { c.Concurrency = 3 })
		if out.Err != nil {
			t.Error(out.Err)
		}
		done <- rec.Of(EventAgentStart)
	}()
	for i := 0; i < 3; i++ {
		<-p.startedC
	}
	close(p.release)
	starts := <-done
	if m := p.maxSeen.Load(); m > 3 {
		t.Fatalf("%d children ran at once; the limit is 3", m)
	}
	for i, ev := range starts {
		if ev.Seq != i+1 {
			t.Fatalf("agent.start %d has seq %d: the gate is not FIFO", i, ev.Seq)
		}
	}
}

func TestGate_AgentStartOnlyWhenHoldingASlot(t *testing.T) {
	p := newBlocking()
	rec := &eventcheck.Recorder{}
	done := make(chan Outcome)
	go func() {
		out, _ := run(t, harness{rec: rec}, `return await Promise.all(Array.from({length: 5}, (_, i) => agent('task ' + i)))`,
			withProvider(p), func(c *Config) { c.Concurrency = 2 })
		done <- out
	}()
	<-p.startedC
	<-p.startedC
	// Two children hold the two slots; three wait and must not look started.
	if n := len(rec.Of(EventAgentStart)); n != 2 {
		t.Fatalf("%d agent.start events while 2 slots are held", n)
	}
	close(p.release)
	out := <-done
	if out.Err != nil || len(rec.Of(EventAgentStart)) != 5 {
		t.Fatalf("%v, %d starts", out.Err, len(rec.Of(EventAgentStart)))
	}
}
