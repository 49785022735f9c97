// Command scalebench measures how wfrun's Temporal mode scales with
// workers: it runs N runs of a 4-agent script against one `wfrun worker`
// process and then against two, each worker with the same fixed
// --max-concurrent-agents, and prints the runs per minute of each and
// their ratio. docs/benchmarks.md records a run of it.
//
//	go run ./engine/temporal/internal/scalebench -dev /path/to/wfrun-temporal
//	go run ./engine/temporal/internal/scalebench -smoke   # tiny sizes: checks that it runs
//
// # The model
//
// Everything runs on this machine, on loopback: the Temporal dev server
// (the wfrun-temporal binary of the nested module engine/temporal/server,
// named by -dev or WFRUN_TEMPORAL_DEV), an OpenAI-compatible endpoint in
// this process whose every answer waits -delay (1 s), and real `wfrun
// worker` processes (built from cmd/wfrun unless -wfrun names one) with
// the openai provider pointed at it. Each worker reaches the endpoint under
// a path of its own, so the endpoint knows which worker asked. The
// workload is I/O bound: an agent holds a worker's slot for the endpoint's
// wait, not for the CPU, so on a busy machine the ratio of two workers to
// one still says how the slots add up, while the absolute figures move
// with the machine.
//
// The package owns the processes it starts (the dev server, the workers)
// and ends each of them, by its own process handle, before it returns;
// the endpoint counts, per distinct prompt, the requests that arrived and
// the answers it gave, which is also what its end-to-end test of a worker
// killed during 50 runs checks. It never talks to anything but loopback,
// and never asserts a timing.
//
// Place in the import arrows: a program on top of engine/temporal, like
// cmd/wfrun; nothing imports it.
package main
