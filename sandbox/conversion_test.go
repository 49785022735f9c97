package sandbox

import (
	"strings"
	"testing"
)

// A builtin installed as a method of the object it converts throws a
// RangeError the script can catch, instead of overflowing Go's stack (which
// would kill the process).
func TestConversion_SelfCallingBuiltinsThrowARangeError(t *testing.T) {
	for _, src := range []string{
		"const o = {}; o.toString = String.prototype.trim; return String(o)",
		"const o = {toString: String.prototype.concat}; return `${o}`",
		"const o = {}; o.toString = Object.prototype.toLocaleString; return String(o)",
		"const o = {}; o.name = o; o.toString = Error.prototype.toString; return String(o)",
		"const e = new Error('x'); e.message = e; return String(e)",
		"const o = {}; o.source = o; o.toString = RegExp.prototype.toString; return String(o)",
		"const o = {}; o.join = Array.prototype.toString; return Array.prototype.toString.call(o)",
		"const o = {}; o.toISOString = Date.prototype.toJSON; return o.toISOString()",
		"const o = {}; o[Symbol.toPrimitive] = String.prototype.at; return `${o}${o}`",
		"const o = {}; o.length = o; o.valueOf = Array.prototype.indexOf; return Number(o)",
		"let o = {valueOf() { return 1 }}; for (let i = 0; i < 1e4; i++) o = {valueOf: Reflect.apply.bind(null, Number, null, [o])}; return +o",
		"const toString = String.prototype.trim; const o = {toString}; return String(o)",
		"const k = 'toString'; const o = {[k]: String.prototype.trim}; return String(o)",
		"const k = 'toString'; const o = {}; o[k] = String.prototype.trim; return String(o)",
		"class A { toString = String.prototype.trim }; return String(new A())",
		"const o = {}; Object.defineProperty(o, 'toString', {value: String.prototype.trim}); return String(o)",
		"const o = {}; Object.defineProperties(o, {toString: {value: String.prototype.trim}}); return String(o)",
		"const o = Object.create(null, {toString: {value: String.prototype.trim}}); return String(o)",
		"const o = Object.assign({}, {get toString() { return String.prototype.trim }}); return String(o)",
		"const o = Object.fromEntries([['toString', String.prototype.trim]]); return String(o)",
		"const o = {}; Reflect.set(o, 'toString', String.prototype.trim); return String(o)",
		"const o = {}; Reflect.defineProperty(o, 'toString', {value: String.prototype.trim}); return String(o)",
		"const o = {}; [o.toString] = [String.prototype.trim]; return String(o)",
		"const o = {}; o.join ||= Array.prototype.toString; return Array.prototype.toString.call(o)",
		"class E extends Error { name = this }; return String(new E())",
		"const o = {}; for (o.toString of [String.prototype.trim]); return String(o)",
	} {
		got, err := run(t, src, "")
		if err == nil || !strings.Contains(err.Error(), "RangeError") {
			t.Errorf("%s: %s, %v; want a RangeError", src, got, err)
		}
		caught, err := run(t, "try { (() => {"+src+"})() } catch (e) { return e.name }", "")
		if err != nil || string(caught) != `"RangeError"` {
			t.Errorf("%s in try: %s, %v; want it caught", src, caught, err)
		}
	}
}

// The counted builtins keep their names, lengths and results, and endless
// JavaScript recursion through them still reaches the call-stack limit.
func TestConversion_CountedBuiltinsAnswerAsBefore(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"const o = {}; o['to' + 'String'] = () => 'x'; return [String(o), ' a '.trim(), 'abc'.at(-1), [1, 2].join('-')]", `["x","a","c","1-2"]`},
		{"const k = 'trim'; return [''[k].name, ''[k].length, [].map.name, [].map.length, Function.prototype.call.length]", `["trim",0,"map",1,1]`},
		{"const k = 'x'; return [/a/g.flags, String(/a/i), 'aXb'.split(/x/i), 'a1'.replace(/\\d/, k)]", `["g","/a/i",["a","b"],"ax"]`},
		{"const k = 'x'; return [Reflect.apply(Math.max, null, [1, 3]), Math.max.apply(null, [4, 2]), Reflect.construct(Array, [1, 2]).length]", `[3,4,2]`},
		{"const k = 'x'; const d = new Date(0); return [d.toJSON(), JSON.stringify({d})]", `["1970-01-01T00:00:00.000Z","{\"d\":\"1970-01-01T00:00:00.000Z\"}"]`},
		{"const k = 'x'; function f(n) { return n === 0 ? '' : [n].map(x => f(x - 1)).join('') + 'a' } return f(300).length", `300`},
		{"const r = await Promise.all([1, Promise.resolve(2)]); const s = await Promise.allSettled([Promise.reject(3)]); return [r, s[0].status, await Promise.race([4]), await Promise.any([5]), Promise.all.name, Promise.all.length]", `[[1,2],"rejected",4,5,"all",1]`},
	} {
		got, err := run(t, c.src, "")
		if err != nil || string(got) != c.want {
			t.Errorf("%s = %s, %v; want %s", c.src, got, err, c.want)
		}
	}
	_, err := run(t, "const k = 'x'; function f(n) { return [n].map(x => f(x + 1)) } return f(0)", "")
	if err == nil || !strings.Contains(err.Error(), "RESOURCE_LIMIT") {
		t.Errorf("endless recursion through map: %v, want the call-stack limit", err)
	}
}

// A builtin installed as a conversion method is wrapped once, the same
// wrapper each time; a script's own functions are left as they are.
func TestConversion_HooksKeepIdentityWhereTheyCan(t *testing.T) {
	got, err := run(t, `const f = function () { return 'f' }, a = {}, b = {toString: String.prototype.trim}
a.toString = String.prototype.trim; a.valueOf = f
return [a.toString === b.toString, a.valueOf === f, a.toString.name, a.toString.length, String({toString: f})]`, "")
	if err != nil || string(got) != `[true,true,"trim",0,"f"]` {
		t.Fatalf("got %s, %v", got, err)
	}
}

// apply, Reflect.apply, the Promise combinators and the Set, Map,
// WeakSet and WeakMap constructors refuse an array longer than the budget.
func TestConversion_ApplyRefusesAHugeArgumentList(t *testing.T) {
	for _, src := range []string{
		"const a = []; a.length = 2 ** 32 - 1; return Math.max.apply(null, a)",
		"const a = []; a.length = 2 ** 32 - 1; return Reflect.apply(Math.max, null, a)",
		"const a = []; a.length = 2 ** 32 - 1; return Reflect.construct(Object, a)",
		"const a = []; a.length = 2 ** 32 - 1; return await Promise.all(a)",
		"const a = []; a.length = 2 ** 32 - 1; return await Promise.race(a)",
		"const a = []; a.length = 2 ** 32 - 1; return new Set(a).size",
		"const a = []; a.length = 2 ** 32 - 1; return new Map(a).size",
		"const a = []; a.length = 2 ** 32 - 1; return new WeakSet(a)",
		"const a = []; a.length = 2 ** 32 - 1; return new WeakMap(a)",
		"const a = []; a.length = 2 ** 32 - 1; const S = globalThis['Se' + 't']; return new S(a).size",
	} {
		_, err := runOpts(t, Options{MaxMemory: 16 << 20}, src, "")
		if err == nil || !strings.Contains(err.Error(), "RESOURCE_LIMIT") {
			t.Errorf("%s: %v, want RESOURCE_LIMIT", src, err)
		}
	}
}

// The guarded collection constructors behave as goja's own: subclasses,
// instanceof, the prototype's constructor, statics, and new required.
func TestConversion_GuardedCollectionsKeepTheirBehaviour(t *testing.T) {
	got, err := run(t, `class M extends Map { n() { return this.size } }
const m = new M([[1, 2]])
let thrown = ''
try { Set() } catch (e) { thrown = e.constructor.name }
return [m.n(), m instanceof Map, m instanceof M, new Set([1, 1, 2]).size, Set.name, Set.length,
  Set.prototype.constructor === Set, Object.getPrototypeOf(new Set()) === Set.prototype,
  Map.groupBy([1, 2, 3], x => x % 2).get(1).length, new WeakMap([[{}, 1]]) instanceof WeakMap,
  [...new Set([3, 4])], thrown]`, "")
	if err != nil || string(got) != `[1,true,true,2,"Set",0,true,true,2,true,[3,4],"TypeError"]` {
		t.Fatalf("got %s, %v", got, err)
	}
}
