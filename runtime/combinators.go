package runtime

import (
	"sync"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// The script-side halves of parallel() and pipeline(). They are JavaScript
// because they are mostly promise plumbing; argument checks and caps call
// back into Go (check), which raises fatal errors the script cannot catch.
// Promise is captured when the VM is set up (before the script runs), so a
// script that replaces the global Promise cannot change how they settle.
const combinatorsJS = `(function (check, Promise) {
  'use strict';
  function settleToNull(thunk, args) {
    try {
      return Promise.resolve(thunk.apply(undefined, args)).then(undefined, function () { return null; });
    } catch (e) {
      return null;
    }
  }
  function parallel(thunks) {
    check('parallel', thunks, arguments.length);
    return Promise.all(thunks.map(function (t) { return settleToNull(t, []); }));
  }
  function pipeline(items) {
    var stages = Array.prototype.slice.call(arguments, 1);
    check('pipeline', items, stages);
    return Promise.all(items.map(function (item, index) {
      var p = Promise.resolve(item);
      var dropped = false;
      stages.forEach(function (stage) {
        p = p.then(function (prev) {
          if (dropped) return null;
          return stage(prev, item, index);
        }).then(undefined, function () { dropped = true; return null; });
      });
      return p.then(function (v) { return dropped ? null : v; });
    }));
  }
  return [parallel, pipeline];
})`

var combinatorsProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("wfrun:combinators", combinatorsJS, true)
})

// installCombinators defines parallel and pipeline. Their JavaScript halves
// are built on the first call of either, so a script that uses neither
// (most do not) does not pay for them. Loop goroutine.
func (r *run) installCombinators(set func(string, any) error) error {
	delegate := func(pick func(jsHelpers) goja.Value) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			if r.helpers.parallel == nil {
				if err := r.buildCombinators(); err != nil {
					panic(err) // an interrupt or a stack overflow: let it unwind the VM
				}
			}
			fn, _ := goja.AssertFunction(pick(r.helpers))
			v, err := fn(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		}
	}
	if err := set("parallel", delegate(func(h jsHelpers) goja.Value { return h.parallel })); err != nil {
		return err
	}
	return set("pipeline", delegate(func(h jsHelpers) goja.Value { return h.pipeline }))
}

// buildCombinators runs the combinators program in this VM.
func (r *run) buildCombinators() error {
	r.capturePromise()
	v, err := r.vm.RunProgram(combinatorsProgram())
	if err != nil {
		return err
	}
	factory, _ := goja.AssertFunction(v)
	pair, err := factory(goja.Undefined(), r.vm.ToValue(r.checkCombinator), r.promise)
	if err != nil {
		return err
	}
	fns := exportArray(pair.ToObject(r.vm))
	r.helpers = jsHelpers{parallel: fns[0], pipeline: fns[1]}
	return nil
}

// checkCombinator validates the arguments of parallel(thunks) and
// pipeline(items, ...stages) and enforces the item cap.
func (r *run) checkCombinator(call goja.FunctionCall) goja.Value {
	name := call.Argument(0).String()
	list := call.Argument(1)
	obj, ok := list.(*goja.Object)
	if !ok || !isArray(obj) {
		if name == "parallel" {
			return r.fatalf(wferr.InvalidArgument, "parallel() takes an array of functions, got %s; write parallel(items.map(x => () => agent(…)))", describe(list))
		}
		return r.fatalf(wferr.InvalidArgument, "pipeline() takes an array of items first, got %s; write pipeline(items, stage1, stage2)", describe(list))
	}
	n := int(obj.Get("length").ToInteger())
	if n > r.cfg.MaxItems {
		return r.fatalf(wferr.ItemCap, "%s() got %d items; the limit is %d per call: split the work into batches", name, n, r.cfg.MaxItems)
	}
	if name == "parallel" {
		for i, t := range exportArray(obj) {
			o, ok := t.(*goja.Object)
			switch {
			case ok && isFunction(o):
				continue
			case ok && isPromise(o):
				return r.fatalf(wferr.InvalidArgument, "parallel() item %d is a promise, not a function: the call already started when the array was built; pass thunks instead, parallel(items.map(x => () => agent(…))), or await Promise.all over the promises", i)
			}
			return r.fatalf(wferr.InvalidArgument, "parallel() item %d is %s, not a function; wrap each call in a thunk: parallel(items.map(x => () => agent(…)))", i, describe(t))
		}
		return goja.Undefined()
	}
	stages, _ := call.Argument(2).(*goja.Object)
	for i, s := range exportArray(stages) {
		if o, ok := s.(*goja.Object); !ok || !isFunction(o) {
			return r.fatalf(wferr.InvalidArgument, "pipeline() stage %d is %s, not a function; write pipeline(items, (item) => agent(…), (prev, item, index) => …)", i+1, describe(s))
		}
	}
	return goja.Undefined()
}
