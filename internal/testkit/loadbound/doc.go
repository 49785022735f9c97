// Package loadbound lets a test bound how long something takes without
// failing on a loaded machine. A wall-clock bound that holds on an idle
// machine is missed on a busy one: with three CPU-bound processes beside
// the tests on two cores, a run that takes 20 s alone takes 57 s. A bound
// in CPU time alone would not see a run that overruns by waiting (a
// deadline that fires late burns no CPU).
//
// So a Timer measures the wall time, the CPU time of the process (and of
// its waited-for children: isolated runs) and, while it runs, how many
// tasks the machine had runnable per CPU (sampled from /proc/loadavg every
// 50 ms). Taken.Over compares the wall time with the bound stretched by
// that load, never by less than 1: on an idle machine the bound holds as
// written, so an overrun is caught; on a machine N times oversubscribed it
// allows N times as long. Off Linux the load is taken as 1.
//
// It owns one sampling goroutine per Timer, which Stop (or the test's
// cleanup) ends and waits for. It is for tests only, and must never be
// used to decide anything in wfrun itself.
package loadbound
