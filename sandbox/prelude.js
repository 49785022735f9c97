// The sandbox's installers (see lazy.go for when each runs). The program
// evaluates to install(name, orig, rewrite, alloc): orig is goja's original
// value of the global, rewrite the Go function that rewrites \p{…} escapes (it
// returns the new pattern, or {error} with a sentence), alloc the Go function
// that size-checks an allocation before it happens (alloc(what, count,
// bytesPer); it ends the run when count is over the budget, see memory.go).
// install returns the
// value the global should have. Everything defined here is non-enumerable,
// like a builtin. Nothing here may read a lazy global by name.
(function install(name, orig, rewrite, alloc) {
  'use strict';
  const defineProperty = Object.defineProperty; // not Reflect: goja builds all of Reflect on first use
  const def = (o, k, v) => defineProperty(o, k, { value: v, writable: true, enumerable: false, configurable: true });
  const replay = ' is not available in a workflow: runs must replay identically';

  switch (name) {
    case 'Date': {
      const OrigDate = orig;
      const Date = function Date(a, b, c, d, e, f, h) {
        if (new.target === undefined) {
          throw new TypeError('Date()' + replay + '; pass the time in args if you need it, and use new Date(value) to work with it');
        }
        const n = arguments.length;
        if (n === 0) {
          throw new TypeError('new Date() without arguments' + replay + '; pass the time in args if you need it');
        }
        const args = n === 1 ? [a] : Array.prototype.slice.call(arguments);
        return Reflect.construct(OrigDate, args, new.target);
      };
      defineProperty(Date, 'prototype', { value: OrigDate.prototype, writable: false });
      def(OrigDate.prototype, 'constructor', Date);
      def(Date, 'UTC', OrigDate.UTC);
      def(Date, 'parse', OrigDate.parse);
      def(Date, 'now', function now() {
        throw new TypeError('Date.now()' + replay + '; pass the time in args if you need it');
      });
      return Date;
    }

    case 'Math':
      def(orig, 'random', function random() {
        throw new TypeError('Math.random()' + replay + '; pass a seed in args and use a seeded generator, or vary the prompts instead');
      });
      return orig;

    case 'eval':
      return {
        eval() { // a method: strict code may not name a function eval
          throw new TypeError('eval is not available in a workflow: write the code in the script itself');
        },
      }.eval;

    case 'RegExp': {
      // Literals are rewritten when the script is parsed; this covers
      // new RegExp('\\p{L}', 'u'). The prototype stays the original, so
      // instanceof and literals keep working.
      const OrigRegExp = orig;
      const OrigSyntaxError = SyntaxError;
      const RegExp = function RegExp(pattern, flags) {
        let src = pattern;
        let fl = flags;
        if (pattern instanceof OrigRegExp) {
          if (new.target === undefined && flags === undefined && pattern.constructor === RegExp) {
            return pattern;
          }
          src = pattern.source;
          if (fl === undefined) fl = pattern.flags;
        }
        if (fl !== undefined && String(fl).indexOf('u') >= 0 && src !== undefined) {
          const s = String(src);
          if (s.indexOf('\\p') >= 0 || s.indexOf('\\P') >= 0) {
            src = rewrite(s);
            if (typeof src !== 'string') throw new OrigSyntaxError('Invalid regular expression: ' + src.error);
          }
        }
        return Reflect.construct(OrigRegExp, [src, fl], new.target === undefined ? RegExp : new.target);
      };
      defineProperty(RegExp, 'prototype', { value: OrigRegExp.prototype, writable: false });
      defineProperty(RegExp, Symbol.species, { get: function () { return this; }, configurable: true });
      def(OrigRegExp.prototype, 'constructor', RegExp);
      return RegExp;
    }

    case 'Object':
      def(orig, 'groupBy', function groupBy(items, callback) {
        if (typeof callback !== 'function') throw new TypeError('Object.groupBy: callback is not a function');
        const out = orig.create(null);
        let i = 0;
        for (const x of items) {
          const k = callback(x, i++);
          const key = typeof k === 'symbol' ? k : String(k);
          if (orig.prototype.hasOwnProperty.call(out, key)) out[key].push(x);
          else out[key] = [x];
        }
        return out;
      });
      return orig;

    case 'Map': case 'Set': case 'WeakMap': case 'WeakSet': {
      // The constructors walk an array's every index natively, holes
      // included, where no deadline reaches them: new Set(a) of an array
      // of 2^32-1 holes would loop past the run's deadline. Size-check an
      // array before they start, as new Array(n) is.
      const Orig = orig;
      const isArray = Array.isArray;
      const C = {
        [name]: function (items) {
          if (new.target === undefined) throw new TypeError('Constructor ' + name + " requires 'new'");
          if (isArray(items)) alloc('new ' + name + '(array)', items.length, 0);
          return Reflect.construct(Orig, arguments, new.target);
        },
      }[name];
      defineProperty(C, 'prototype', { value: Orig.prototype, writable: false });
      defineProperty(C, 'length', { value: 0 });
      def(Orig.prototype, 'constructor', C);
      defineProperty(C, Symbol.species, { get: function () { return this; }, configurable: true });
      if (name === 'Map') {
        def(C, 'groupBy', function groupBy(items, callback) {
          if (typeof callback !== 'function') throw new TypeError('Map.groupBy: callback is not a function');
          const out = new Orig();
          let i = 0;
          for (const x of items) {
            let k = callback(x, i++);
            if (k === 0) k = 0; // -0 → +0
            const list = out.get(k);
            if (list) list.push(x);
            else out.set(k, [x]);
          }
          return out;
        });
      }
      return C;
    }

    case 'Promise': {
      def(orig, 'withResolvers', function withResolvers() {
        let resolve, reject;
        const promise = new this((res, rej) => { resolve = res; reject = rej; });
        return { promise, resolve, reject };
      });
      // The combinators walk an array's every index natively, holes
      // included: size-check an array before they start.
      const isArray = Array.isArray;
      for (const k of ['all', 'allSettled', 'any', 'race']) {
        const f = orig[k];
        def(orig, k, {
          [k](items) {
            if (isArray(items)) alloc('Promise.' + k, items.length, 0);
            return Reflect.apply(f, this, arguments);
          },
        }[k]);
      }
      return orig;
    }

    case 'ArrayBuffer': case 'SharedArrayBuffer':
    case 'Int8Array': case 'Uint8Array': case 'Uint8ClampedArray': case 'Int16Array': case 'Uint16Array':
    case 'Int32Array': case 'Uint32Array': case 'Float32Array': case 'Float64Array':
    case 'BigInt64Array': case 'BigUint64Array': case 'Float16Array': {
      // Sized by argument: check the bytes before goja allocates them. A
      // typed array made from a buffer or a typed array allocates nothing
      // new; from an array-like it allocates length elements.
      if (typeof orig !== 'function') return orig; // not in this goja
      const Orig = orig;
      const per = Orig.BYTES_PER_ELEMENT || 1;
      const isBuffer = name.endsWith('Buffer');
      const bytesOf = (a) => {
        if (isBuffer) return [a === undefined ? 0 : Number(a)];
        if (a === null || typeof a !== 'object') return [a === undefined ? 0 : Number(a)];
        if (a instanceof ArrayBuffer || ArrayBuffer.isView(a)) return null;
        return [Number(a.length) || 0];
      };
      const Guarded = function (a, b, c) { // a function, not a method: it must be a constructor
        if (new.target === undefined) return Orig(); // throws: a constructor needs new
        const n = bytesOf(a);
        if (n !== null) {
          alloc('new ' + name + '(…)', n[0], per);
          if (isBuffer && b !== null && typeof b === 'object' && b.maxByteLength !== undefined) {
            alloc('new ' + name + '(…, {maxByteLength})', Number(b.maxByteLength), 1);
          }
        }
        return Reflect.construct(Orig, arguments, new.target);
      };
      defineProperty(Guarded, 'name', { value: name });
      defineProperty(Guarded, 'length', { value: Orig.length });
      defineProperty(Guarded, 'prototype', { value: Orig.prototype, writable: false });
      def(Orig.prototype, 'constructor', Guarded);
      Object.setPrototypeOf(Guarded, Object.getPrototypeOf(Orig));
      if (!isBuffer) defineProperty(Guarded, 'BYTES_PER_ELEMENT', { value: per });
      if (isBuffer && Orig.isView) def(Guarded, 'isView', Orig.isView);
      for (const k of ['from', 'of']) {
        const f = Orig[k];
        if (typeof f !== 'function') continue;
        def(Guarded, k, {
          [k](items) {
            if (k === 'from' && items != null && typeof items === 'object' && !(Symbol.iterator in items)) {
              alloc(name + '.from', Number(items.length) || 0, per);
            } else if (k === 'from' && Array.isArray(items)) {
              alloc(name + '.from', items.length, per);
            }
            return f.apply(this === Guarded ? Orig : this, arguments);
          },
        }[k]);
      }
      return Guarded;
    }

    case 'Array': {
      // new Array(n) and Array(n) make a sparse array of length n, which the
      // builtins that walk arrays turn into n slots: refuse an n above the
      // budget here, where the script made it.
      const OrigArray = orig;
      const Array = function Array(n) {
        if (arguments.length === 1 && typeof n === 'number') alloc('new Array(' + n + ')', n, 0);
        return Reflect.construct(OrigArray, arguments, new.target === undefined ? Array : new.target);
      };
      defineProperty(Array, 'prototype', { value: OrigArray.prototype, writable: false });
      def(OrigArray.prototype, 'constructor', Array);
      for (const k of ['isArray', 'of']) def(Array, k, OrigArray[k]);
      // Arrays' species stays goja's own constructor (its native fast path);
      // a subclass's is the subclass.
      defineProperty(Array, Symbol.species, { get: function () { return this === Array ? OrigArray : this; }, configurable: true });
      const from = OrigArray.from;
      def(Array, 'from', function from_(items, mapFn, thisArg) {
        if (items != null && (typeof items === 'object' || typeof items === 'function')) {
          if (OrigArray.isArray(items) || !(Symbol.iterator in items)) alloc('Array.from', Number(items.length) || 0, 0);
        }
        return from.apply(this === Array ? OrigArray : this, arguments);
      });
      defineProperty(Array.from, 'name', { value: 'from' });
      orig = Array;
      def(orig, 'fromAsync', async function fromAsync(items, mapFn, thisArg) {
        if (items == null) throw new TypeError('Array.fromAsync: items is null or undefined');
        if (mapFn !== undefined && typeof mapFn !== 'function') throw new TypeError('Array.fromAsync: mapFn is not a function');
        const out = [];
        let i = 0;
        const push = async (v) => {
          v = await v;
          out.push(mapFn === undefined ? v : await mapFn.call(thisArg, v, i));
          i++;
        };
        if (typeof items[Symbol.asyncIterator] === 'function') {
          const it = items[Symbol.asyncIterator]();
          for (;;) {
            const r = await it.next();
            if (r.done) break;
            await push(r.value);
          }
        } else if (typeof items[Symbol.iterator] === 'function') {
          for (const v of items) await push(v);
        } else {
          const n = items.length >>> 0;
          for (let k = 0; k < n; k++) await push(items[k]);
        }
        return out;
      });
      return orig;
    }

    case 'structuredClone': {
      const cloneError = (what) => {
        const e = new Error('structuredClone: ' + what + ' could not be cloned: only plain data (objects, arrays, Map, Set, Date, RegExp) can be copied');
        e.name = 'DataCloneError';
        return e;
      };
      const toString = (v) => Reflect.apply(Reflect.getPrototypeOf(Reflect).toString, v, []);
      return function structuredClone(value) {
        const seen = new Map();
        const clone = (v) => {
          const t = typeof v;
          if (t === 'function') throw cloneError('a function');
          if (t === 'symbol') throw cloneError('a symbol');
          if (v === null || t !== 'object') return v;
          if (seen.has(v)) return seen.get(v);
          const tag = toString(v).slice(8, -1);
          let r;
          switch (tag) {
            case 'Date': {
              const D = Reflect.getPrototypeOf(v).constructor;
              r = Reflect.construct(D, [v.getTime()]);
              break;
            }
            case 'RegExp': {
              const R = Reflect.getPrototypeOf(v).constructor;
              r = Reflect.construct(R, [v.source, v.flags]);
              break;
            }
            case 'Map':
              r = new Map();
              seen.set(v, r);
              for (const [k, x] of v) r.set(clone(k), clone(x));
              return r;
            case 'Set':
              r = new Set();
              seen.set(v, r);
              for (const x of v) r.add(clone(x));
              return r;
            case 'Array':
              r = new Array(v.length);
              seen.set(v, r);
              for (const k of Reflect.ownKeys(v)) if (k !== 'length' && typeof k === 'string') r[k] = clone(v[k]);
              return r;
            case 'Error':
              r = new Error(v.message);
              if (v.name !== 'Error') r.name = String(v.name);
              break;
            case 'ArrayBuffer':
              r = v.slice(0);
              break;
            case 'Number': case 'String': case 'Boolean':
              r = Object(v.valueOf());
              break;
            case 'Object':
              r = {};
              seen.set(v, r);
              for (const k of Reflect.ownKeys(v)) {
                if (typeof k === 'string' && Reflect.getOwnPropertyDescriptor(v, k).enumerable) r[k] = clone(v[k]);
              }
              return r;
            default:
              if (ArrayBuffer.isView(v)) {
                r = new v.constructor(v);
                break;
              }
              throw cloneError('a ' + tag);
          }
          seen.set(v, r);
          return r;
        };
        return clone(value);
      };
    }
  }
  return orig;
})
