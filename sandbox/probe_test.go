package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The native-recursion probe looks for builtins that goja implements with Go
// recursion that its call-stack limit (which counts JS frames) does not
// bound: such a builtin turns a deep enough value into `fatal error: stack
// overflow`, which kills the process, or into a hang the deadline cannot
// interrupt. It is a tool, not part of the suite:
//
//	WFRUN_PROBE=1 go test -run TestNativeRecursionProbe -v ./sandbox/
//
// Each case runs in a child test process whose Go stack is capped at
// WFRUN_PROBE_STACK MiB (default 32) with nesting WFRUN_PROBE_N (default
// 1,000,000), so 32 bytes of Go stack per level already overflow it: a
// crash means native recursion, "ok" or a script error means the path is
// bounded. WFRUN_PROBE_CASES=a,b limits the cases.
var probeCases = []struct{ name, src string }{
	// Arrays turned into strings.
	{"Array.toString", "let a = []; for (let i = 0; i < N; i++) a = [a]; a.toString(); return 1"},
	{"Array.join", "let a = []; for (let i = 0; i < N; i++) a = [a]; a.join('-'); return 1"},
	{"Array.toLocaleString", "let a = []; for (let i = 0; i < N; i++) a = [a]; a.toLocaleString(); return 1"},
	{"String(array)", "let a = []; for (let i = 0; i < N; i++) a = [a]; String(a); return 1"},
	{"template(array)", "let a = []; for (let i = 0; i < N; i++) a = [a]; `${a}`; return 1"},
	{"array+string", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return (a + '').length"},
	{"array==string", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return a == '1'"},
	{"Error.message(array)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return new Error(a).message.length"},
	{"String.concat(array)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return ''.concat(a).length"},
	// JSON.
	{"JSON.stringify(array)", "let a = []; for (let i = 0; i < N; i++) a = [a]; return JSON.stringify(a).length"},
	{"JSON.stringify(object)", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return JSON.stringify(o).length"},
	{"JSON.stringify(replacer)", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return JSON.stringify(o, (k, v) => v).length"},
	{"JSON.stringify(allowlist)", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return JSON.stringify(o, ['o']).length"},
	{"JSON.stringify(indent)", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return JSON.stringify(o, null, 2).length"},
	{"JSON.stringify(toJSON)", "let o = {}; for (let i = 0; i < N; i++) { const p = o; o = {toJSON() { return [p] }} }; return JSON.stringify(o).length"},
	{"export(array)", "let a = []; for (let i = 0; i < N; i++) a = [a]; return a"},
	{"export(object)", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return o"},
	{"JSON.parse(array)", "return JSON.parse('['.repeat(N) + ']'.repeat(N)).length"},
	{"JSON.parse(object)", "return JSON.parse('{\"a\":'.repeat(N) + '1' + '}'.repeat(N)) !== null"},
	{"JSON.parse(reviver)", "return JSON.parse('['.repeat(N) + ']'.repeat(N), (k, v) => v).length"},
	{"ParseJSON(array)", "go:ParseJSON"},
	// Flattening and copying.
	{"flat(Infinity)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return a.flat(Infinity).length"},
	{"flat(N)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return a.flat(N).length"},
	{"flatMap", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return a.flatMap(x => x).length"},
	{"structuredClone", "let a = []; for (let i = 0; i < N; i++) a = [a]; structuredClone(a); return 1"},
	{"spread", "const a = new Array(N).fill(1); return [...a].length + Math.max(...a.slice(0, 1000))"},
	{"sort/includes/indexOf", "const a = Array.from({length: N}, (_, i) => N - i); a.sort((x, y) => x - y); return [a.includes(-1), a.indexOf(N)]"},
	{"concat(nested)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return [].concat(a, a).length"},
	// Prototype chains.
	{"proto.missing", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return o.missing"},
	{"proto.in", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return 'missing' in o"},
	{"proto.set", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); o.x = 1; return o.x"},
	{"proto.index", "let o = []; for (let i = 0; i < N; i++) o = Object.create(o); return o[5]"},
	{"proto.symbol", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return o[Symbol.iterator] === undefined"},
	{"proto.instanceof", "function F() {}; let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return o instanceof F"},
	{"proto.isPrototypeOf", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return Array.prototype.isPrototypeOf(o)"},
	{"proto.forin", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); let n = 0; for (const k in o) n++; return n"},
	{"proto.setPrototypeOf", "let o = {}; const root = o; for (let i = 0; i < N; i++) o = Object.create(o); try { Object.setPrototypeOf(root, o) } catch (e) { return 'cycle' } return 'no'"},
	{"proto.toString", "let o = {}; for (let i = 0; i < N; i++) o = Object.create(o); return String(o)"},
	{"proto.class", "let C = class {}; for (let i = 0; i < N / 100; i++) C = class extends C {}; return new C() instanceof Object"},
	// Proxies.
	{"Proxy.get", "let p = {}; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return p.x"},
	{"Proxy.set", "let p = {}; for (let i = 0; i < N; i++) p = new Proxy(p, {}); p.x = 1; return 1"},
	{"Proxy.has", "let p = {}; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return 'x' in p"},
	{"Proxy.keys", "let p = {}; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return Object.keys(p)"},
	{"Proxy.call", "let p = function () { return 1 }; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return p()"},
	{"Proxy.isArray", "let p = []; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return Array.isArray(p)"},
	{"Proxy.typeof", "let p = {}; for (let i = 0; i < N; i++) p = new Proxy(p, {}); return typeof p"},
	{"Proxy.proto", "let p = {}; for (let i = 0; i < N; i++) p = Object.create(new Proxy(p, {})); return p.x"},
	{"Proxy.revocable", "let p = {}; for (let i = 0; i < N; i++) p = Proxy.revocable(p, {}).proxy; return p.x"},
	// Functions.
	{"bind.call", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return f()"},
	{"bind.new", "let f = function () { this.a = 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return new f().a"},
	{"bind.instanceof", "let f = function () {}; for (let i = 0; i < N; i++) f = f.bind(null); return {} instanceof f"},
	{"bind.apply", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return f.apply(null, []) + f.call(null)"},
	{"bind.Reflect", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return Reflect.apply(f, null, [])"},
	{"bind.map", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return [1].map(f)"},
	{"bind.then", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = f.bind(null); return await Promise.resolve(0).then(f)"},
	{"bind.call(unnamed)", "let f = function () { return 1 }; for (let i = 0; i < N; i++) { f = f.bind(null); delete f.name } return f()"},
	{"bind.args", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = Reflect.apply.bind(null, f, null, []); return f()"},
	{"bind.data", "let o = {valueOf() { return 1 }}; for (let i = 0; i < N; i++) o = {valueOf: Reflect.apply.bind(null, Number, null, [o])}; return +o"},
	{"call.call", "let f = function () { return 1 }; for (let i = 0; i < N; i++) f = Function.prototype.call.bind(f); return f()"},
	{"bound.toString", "let f = function () {}; for (let i = 0; i < N; i++) f = f.bind(null); return String(f).length"},
	{"bound.name", "let f = function () {}; for (let i = 0; i < N / 10; i++) f = f.bind(null); return f.name.length"},
	// Promises.
	{"Promise.thenables", "let p = 1; for (let i = 0; i < N; i++) { const q = p; p = {then(r) { r(q) }} } return await p"},
	{"Promise.resolve(p)", "let p = Promise.resolve(1); for (let i = 0; i < N; i++) { const q = p; p = new Promise(r => r(q)) } return await p"},
	{"Promise.then chain", "let p = Promise.resolve(1); for (let i = 0; i < N; i++) p = p.then(x => x); return await p"},
	{"Promise.async chain", "let f = async () => 1; for (let i = 0; i < N; i++) { const g = f; f = async () => g() } return await f()"},
	// Natives that convert `this` to a string, installed as its toString.
	{"self.toLocaleString", "const o = {}; o.toString = Object.prototype.toLocaleString; return String(o)"},
	{"self.String.trim", "const o = {}; o.toString = String.prototype.trim; return String(o)"},
	{"self.String.concat", "const o = {}; o.toString = String.prototype.concat; return String(o)"},
	{"self.Error.toString", "const o = {}; o.name = o; o.toString = Error.prototype.toString; return String(o)"},
	{"self.RegExp.toString", "const o = {}; o.source = o; o.toString = RegExp.prototype.toString; return String(o)"},
	{"self.Array.toString", "const o = {}; o.join = Array.prototype.toString; return Array.prototype.toString.call(o)"},
	{"self.Date.toJSON", "const o = {}; o.toISOString = Date.prototype.toJSON; return o.toISOString()"},
	{"self.valueOf.toString", "const o = {}; o.valueOf = String.prototype.toString; o.toString = String.prototype.trim; return o + 1"},
	{"self.getter", "const o = {}; Object.defineProperty(o, 'x', {get: Object.prototype.toString}); o.toString = String.prototype.trim; return o.x"},
	{"self.String.at", "const o = {}; o[Symbol.toPrimitive] = String.prototype.at; return `${o}`"},
	// Freezing, comparing, converting.
	{"freeze/isFrozen", "let a = []; for (let i = 0; i < N; i++) a = Object.freeze([a]); return Object.isFrozen(a)"},
	{"valueOf chain ==", "let o = 1; for (let i = 0; i < N; i++) { const p = o; o = {valueOf() { return p }} } return o == 1"},
	{"valueOf chain +", "let o = 1; for (let i = 0; i < N; i++) { const p = o; o = {valueOf() { return +p }} } return o + 1"},
	{"toPrimitive chain", "let o = 1; for (let i = 0; i < N; i++) { const p = o; o = {[Symbol.toPrimitive]() { return `${p}` }} } return `${o}`"},
	{"getter chain", "let o = {v: 1}; for (let i = 0; i < N; i++) { const p = o; o = {get v() { return p.v }} } return o.v"},
	{"Error.cause", "let e = new Error('x'); for (let i = 0; i < N; i++) e = new Error('y', {cause: e}); return String(e)"},
	{"Error.name chain", "let e = {name: 'E', message: 'm'}; for (let i = 0; i < N; i++) { e = {name: e, message: ''} } return Error.prototype.toString.call(e).length"},
	{"Map/Set nested", "let m = new Map(); for (let i = 0; i < N; i++) m = new Map([[m, new Set([m])]]); return m.size"},
	{"Object.assign/entries", "let o = {}; for (let i = 0; i < N; i++) o = {o}; return Object.entries(Object.assign({}, o)).length"},
	{"Array.from(nested)", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return Array.from(a).length"},
	{"deep equality string", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return a.includes(a[0])"},
	{"URLSearchParams(array)", "let a = [['k', 'v']]; for (let i = 0; i < N; i++) a = [a]; try { new URLSearchParams(a) } catch (e) { return 'threw' } return 1"},
	{"URL(array)", "let a = ['https://x/']; for (let i = 0; i < N; i++) a = [a]; return new URL(a).href"},
	{"RegExp(array)", "let a = ['x']; for (let i = 0; i < N; i++) a = [a]; return new RegExp(a).source"},
	{"Object.groupBy", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; return Object.keys(Object.groupBy([a], x => x)).length"},
	{"Symbol.description(array)", "let a = ['x']; for (let i = 0; i < N; i++) a = [a]; return Symbol(a).description.length"},
	{"obj key(array)", "let a = ['x']; for (let i = 0; i < N; i++) a = [a]; const o = {}; o[a] = 1; return Object.keys(o)"},
	{"parseInt(array)", "let a = ['7']; for (let i = 0; i < N; i++) a = [a]; return parseInt(a) + Number(a)"},
	{"localeCompare(array)", "let a = ['x']; for (let i = 0; i < N; i++) a = [a]; return 'x'.localeCompare(a)"},
	{"sort(nested)", "let a = ['x']; for (let i = 0; i < N; i++) a = [a]; return [a, a, 'y'].sort().length"},
	{"log-like describe", "let a = [1]; for (let i = 0; i < N; i++) a = [a]; throw a"},
	{"throw nested object", "let o = {}; for (let i = 0; i < N; i++) o = {o}; throw o"},
}

func TestNativeRecursionProbe(t *testing.T) {
	if name := os.Getenv("WFRUN_PROBE_CASE"); name != "" {
		probeChild(t, name)
		return
	}
	if os.Getenv("WFRUN_PROBE") == "" {
		t.Skip("a tool: set WFRUN_PROBE=1 to run it (see probe_test.go)")
	}
	only := map[string]bool{}
	if s := os.Getenv("WFRUN_PROBE_CASES"); s != "" {
		for _, n := range strings.Split(s, ",") {
			only[n] = true
		}
	}
	timeout := 30 * time.Second
	if s := os.Getenv("WFRUN_PROBE_TIMEOUT"); s != "" {
		timeout, _ = time.ParseDuration(s)
	}
	workers := 2
	if s := os.Getenv("WFRUN_PROBE_JOBS"); s != "" {
		workers, _ = strconv.Atoi(s)
	}
	verdicts := make([]chan string, len(probeCases))
	sem := make(chan struct{}, workers)
	for i, c := range probeCases {
		verdicts[i] = make(chan string, 1)
		if len(only) > 0 && !only[c.name] {
			verdicts[i] <- ""
			continue
		}
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			verdicts[i] <- probeOne(c.name, timeout)
		}()
	}
	for i, c := range probeCases {
		if v := <-verdicts[i]; v != "" {
			t.Logf("%-28s %s", c.name, v)
		}
	}
}

// probeOne runs case name in a child process and describes what happened.
func probeOne(name string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNativeRecursionProbe$", "-test.v")
	cmd.Env = append(os.Environ(), "WFRUN_PROBE_CASE="+name)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start).Round(time.Millisecond)
	s := string(out)
	var verdict string
	switch {
	case ctx.Err() != nil:
		verdict = "HANG (killed after " + timeout.String() + ")"
	case strings.Contains(s, "goroutine stack exceeds") || strings.Contains(s, "stack overflow"):
		verdict = "CRASH (native recursion)"
	case strings.Contains(s, "PROBE-RESULT:"):
		verdict = s[strings.Index(s, "PROBE-RESULT:")+len("PROBE-RESULT:"):]
		verdict = strings.TrimSpace(strings.SplitN(verdict, "\n", 2)[0])
	default:
		verdict = fmt.Sprintf("?? %v: %.300s", err, s)
	}
	return fmt.Sprintf("%8v  %s", d, verdict)
}

// probeChild runs one case with the Go stack capped.
func probeChild(t *testing.T, name string) {
	n := 1_000_000
	if s := os.Getenv("WFRUN_PROBE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	mib := 32
	if s := os.Getenv("WFRUN_PROBE_STACK"); s != "" {
		mib, _ = strconv.Atoi(s)
	}
	defer debug.SetMaxStack(debug.SetMaxStack(mib << 20))
	for _, c := range probeCases {
		if c.name != name {
			continue
		}
		var res string
		if c.src == "go:ParseJSON" {
			r := New(Options{})
			_, err := r.ParseJSON([]byte(strings.Repeat("[", n) + strings.Repeat("]", n)))
			res = fmt.Sprintf("err=%v", err)
		} else {
			out, err := run(t, "const N = "+strconv.Itoa(n)+"\n"+c.src, "")
			res = fmt.Sprintf("out=%.80s err=%.200v", out, err)
		}
		fmt.Println("PROBE-RESULT:", res)
		return
	}
	t.Fatalf("no case %q", name)
}
