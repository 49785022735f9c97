// Command bench measures wfrun side by side with the design it replaces: a
// Node.js worker_threads worker per run, with agent() as a message round
// trip to the main thread, which answers at once (testdata/bench/node). Both
// sides run the same scripts on the same machine in one invocation, in
// interleaved rounds, and the command prints each side's median and the
// ratio between them. docs/benchmarks.md records a run of it and says how
// to read one.
//
// Run it from anywhere inside the repository, with the machine's node on
// PATH:
//
//	go run ./engine/internal/bench            # the full comparison, a few minutes
//	go run ./engine/internal/bench -smoke     # tiny sizes: checks that it runs
//
// The workloads:
//
//   - start: a trivial run (meta, one agent(), return), start to result;
//   - throughput: runs per second of a 4-agent Promise.all script over 4
//     lanes (4 callers, each starting its next run when the last settled);
//   - fan-out: the cost of one agent() in one run that fans out to 1,000
//     and to 10,000 children with Promise.all (Node: one worker, reused);
//   - suspended: the resident memory of 10,000 runs alive at once, each
//     awaiting a child that never answers. wfrun's is read in a fresh
//     process of this command; Node's is read for fewer workers (each is a
//     V8 isolate of several MiB) and scaled to 10,000, which the report
//     says.
//
// wfrun runs through the public engine API with the fake provider at zero
// delay. Timings are never asserted: the smoke test only checks that each
// workload produces a figure for both sides.
//
// Place in the import arrows: a program on top of engine, like cmd/wfrun;
// nothing imports it.
package main
